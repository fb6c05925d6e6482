package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The commands are built on cobra (GNU flags through pflag, `help` and
// `--help` exiting 0, `--version`, shell completion through the generated
// `completion` command); the helpers below turn every mistake cobra or pflag
// reports into a one-line *UsageError naming the command whose help to
// read, with a suggestion where a name was mistyped.

// NewRoot returns the root command of program prog: errors and usage are
// not printed by cobra (Execute returns them for Report), `--version`
// prints Version, and flag mistakes become *UsageError.
func NewRoot(prog, short, long string) *cobra.Command {
	c := &cobra.Command{
		Use: prog, Short: short, Long: long, Version: Version(),
		SilenceErrors: true, SilenceUsage: true,
	}
	c.SetVersionTemplate(prog + " {{.Version}}\n")
	c.SuggestionsMinimumDistance = 2
	c.SetFlagErrorFunc(flagError)
	return c
}

// Execute runs root with args, printing help and version to stdout and
// diagnostics to stderr. A usage mistake comes back as a *UsageError whose
// Cmd names the command (for Report's hint); any other error as the command
// returned it.
func Execute(root *cobra.Command, args []string, stdout, stderr io.Writer) error {
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if cmd, _, err := root.Find(args); err == nil {
		if err := boolWithValue(cmd, args); err != nil {
			return err
		}
		// A root that takes a file (frontierq STORE) and has commands: a
		// first word that names no file but nearly a command is a typo.
		if cmd == root && root.HasAvailableSubCommands() && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			if _, err := os.Stat(args[0]); err != nil {
				if hint := suggestCommand(root, args); hint != "" {
					return &UsageError{Msg: fmt.Sprintf("unknown command %q", args[0]) + hint, Cmd: root.CommandPath()}
				}
			}
		}
	}
	cmd, err := root.ExecuteC()
	if err == nil {
		return nil
	}
	var u *UsageError
	if errors.As(err, &u) {
		if u.Cmd == "" {
			u.Cmd = cmd.CommandPath()
		}
		return err
	}
	if msg := err.Error(); strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "required flag") {
		// cobra's own: a mistyped subcommand of a command with subcommands
		// only, or a missing required flag.
		msg, _, _ = strings.Cut(msg, "\n")
		return &UsageError{Msg: msg + suggestCommand(cmd, args), Cmd: cmd.CommandPath()}
	}
	return err
}

// suggestCommand returns "; did you mean 'X'?" when the first argument is
// close to the name of one of cmd's subcommands.
func suggestCommand(cmd *cobra.Command, args []string) string {
	if len(args) == 0 {
		return ""
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		return fmt.Sprintf("; did you mean '%s %s'?", cmd.CommandPath(), s[0])
	}
	return ""
}

// UnknownCommand is the RunE of a root command that only groups
// subcommands: no argument, or an unknown command (with a suggestion), is a
// usage error listing the commands.
func UnknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		var names []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() && c.Name() != "help" && c.Name() != "completion" {
				names = append(names, c.Name())
			}
		}
		return &UsageError{Msg: "no command given: want one of " + strings.Join(names, ", "), Cmd: cmd.CommandPath()}
	}
	return &UsageError{Msg: fmt.Sprintf("unknown command %q", args[0]) + suggestCommand(cmd, args), Cmd: cmd.CommandPath()}
}

// Args returns a positional-argument check for a command taking exactly the
// named arguments (Args("DEM"); none when names is empty): a mismatch is a
// one-line *UsageError.
func Args(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == len(names) {
			return nil
		}
		return argsError(cmd, args, describe(names))
	}
}

// MinArgs is Args for commands taking one or more of the argument named
// name (`join PART...`).
func MinArgs(name string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return nil
		}
		return argsError(cmd, args, "one or more "+name)
	}
}

func describe(names []string) string {
	switch len(names) {
	case 0:
		return "no arguments"
	case 1:
		return "one " + names[0]
	}
	return strings.Join(names, " ")
}

func argsError(cmd *cobra.Command, args []string, want string) error {
	got := "none"
	if len(args) > 0 {
		got = fmt.Sprintf("%d: %s", len(args), strings.Join(quoteAll(args), " "))
	}
	msg := fmt.Sprintf("%s takes %s, got %s", cmd.Name(), want, got)
	if len(args) > 0 && cmd.HasAvailableSubCommands() {
		msg += suggestCommand(cmd, args)
	}
	return &UsageError{Msg: msg, Cmd: cmd.CommandPath()}
}

func quoteAll(args []string) []string {
	var out []string
	for i, a := range args {
		if i == 4 {
			return append(out, "…")
		}
		out = append(out, fmt.Sprintf("%q", a))
	}
	return out
}

// boolWithValue catches `--quiet true`: a boolean flag followed by a word
// that reads as its value, which pflag would take as a positional argument
// and the command would misreport.
func boolWithValue(cmd *cobra.Command, args []string) error {
	for i := 0; i+1 < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		var f *pflag.Flag
		switch {
		case strings.HasPrefix(a, "--") && !strings.Contains(a, "="):
			f = cmd.Flags().Lookup(a[2:])
		case len(a) == 2 && a[0] == '-':
			f = cmd.Flags().ShorthandLookup(a[1:])
		}
		if f == nil || f.Value.Type() != "bool" {
			continue
		}
		switch strings.ToLower(args[i+1]) {
		case "true", "false", "yes", "no", "on", "off", "0", "1":
			return &UsageError{Msg: fmt.Sprintf("%s takes no separate value: write --%s=%s (or --%s alone for true)", a, f.Name, args[i+1], f.Name),
				Cmd: cmd.CommandPath()}
		}
	}
	return nil
}

// flagError turns pflag's parse errors into one-line *UsageError with a
// suggestion for a mistyped name and the expected form of a bad value.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	u := &UsageError{Msg: msg, Cmd: cmd.CommandPath()}
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		u.Msg = "unknown flag --" + name
		if s := closest(name, flagNames(cmd)); s != "" {
			u.Msg += "; did you mean --" + s + "?"
		}
		return u
	}
	var name, val string
	if n, _ := fmt.Sscanf(msg, "invalid argument %q for %q flag", &val, &name); n == 2 {
		long := name
		if i := strings.LastIndex(name, "--"); i >= 0 {
			long = name[i+2:]
		}
		if f := cmd.Flags().Lookup(long); f != nil {
			u.Msg = fmt.Sprintf("--%s %q: want %s", long, val, typeWord(f.Value.Type()))
		}
	}
	return u
}

// typeWord names what a flag of pflag type t takes.
func typeWord(t string) string {
	switch t {
	case "int", "int64", "int32":
		return "an integer"
	case "uint64", "uint", "uint32":
		return "an integer ≥ 0"
	case "float64", "float32":
		return "a number"
	case "duration":
		return "a duration such as 30s or 2m"
	case "bool":
		return "true or false"
	}
	return "a " + t
}

func flagNames(cmd *cobra.Command) []string {
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return names
}

// closest returns the name nearest to s by edit distance (at most 2, or a
// name s is a prefix of), or "".
func closest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		d := editDistance(s, n)
		if strings.HasPrefix(n, s) && len(s) >= 3 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is Levenshtein's distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// release and commit are the version and commit a release build stamps
// into the programs (make release: -ldflags "-X …/internal/cli.release=v…
// -X …/internal/cli.commit=…", since builds with -buildvcs=false record no
// revision); "" otherwise.
var release, commit string

// Version returns the program's version from its build information: the
// release's version (make release), else the module version for `go
// install …@version`, else "devel"; the VCS revision when the build
// recorded one; the Go version, the target and the build's flags (cgo,
// which links GDAL; the CPU level; experiments; tags), e.g. "v0.9.0 (commit
// 4f2a9c1e0b3d), go1.26.8 windows/amd64 CGO_ENABLED=0 GOAMD64=v1".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return cmp.Or(release, "devel")
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	v = cmp.Or(release, v)
	var rev, dirty, goos, goarch string
	var flags []string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+modified"
			}
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		case "CGO_ENABLED", "GOAMD64", "GOARM64", "GOEXPERIMENT":
			flags = append(flags, s.Key+"="+s.Value)
		case "-tags":
			flags = append(flags, "tags="+s.Value)
		}
	}
	if rev = cmp.Or(rev, commit); rev != "" {
		v += fmt.Sprintf(" (commit %.12s%s)", rev, dirty)
	}
	v += ", " + bi.GoVersion
	if goos != "" {
		v += " " + goos + "/" + goarch
	}
	if len(flags) > 0 {
		v += " " + strings.Join(flags, " ")
	}
	return v
}
