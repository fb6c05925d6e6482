package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/internal/testwine"
)

// TestPackSameBytes: packing the same stage twice gives the same archives
// and SHA256SUMS (entries sorted, one fixed time); each archive holds the
// target's programs with their run bits, README, LICENSE and the command
// pages; the Unity package holds every target's native library.
func TestPackSameBytes(t *testing.T) {
	stage := t.TempDir()
	for target, files := range map[string][]string{
		"linux-amd64":   {"pvsbake", "frontierq", "libfrontiersets.so", "frontiersets.h"},
		"windows-amd64": {"pvsbake.exe", "frontierq.exe", "frontiersets.dll", "frontiersets.h"},
		"darwin-arm64":  {"pvsbake", "frontierq"},
	} {
		os.MkdirAll(filepath.Join(stage, target), 0o755)
		for _, f := range files {
			os.WriteFile(filepath.Join(stage, target, f), []byte(target+"/"+f), 0o755)
		}
	}
	var sums []string
	for range 2 {
		out := t.TempDir()
		if err := run([]string{"-version", "v1.2.3", "-stage", stage, "-out", out, "-root", "../.."}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, string(b))
		names := entries(t, filepath.Join(out, "frontiersets-v1.2.3-windows-amd64.zip"))
		for _, want := range []string{"frontiersets-v1.2.3-windows-amd64/pvsbake.exe 755", "frontiersets-v1.2.3-windows-amd64/frontiersets.dll 644",
			"frontiersets-v1.2.3-windows-amd64/README.md 644", "frontiersets-v1.2.3-windows-amd64/docs/commands/pvsbake.md 644"} {
			if !slices.Contains(names, want) {
				t.Errorf("the Windows archive lacks %s: %v", want, names)
			}
		}
		if names := entries(t, filepath.Join(out, "frontiersets-v1.2.3-darwin-arm64.tar.gz")); !slices.Contains(names, "frontiersets-v1.2.3-darwin-arm64/frontierq 755") {
			t.Errorf("the macOS archive: %v", names)
		}
		unity := entries(t, filepath.Join(out, "frontiersets-v1.2.3-unity.zip"))
		for _, want := range []string{"com.frontiersets.frontiersets/Plugins/linux/x86_64/libfrontiersets.so 644",
			"com.frontiersets.frontiersets/Plugins/windows/x86_64/frontiersets.dll 644", "com.frontiersets.frontiersets/package.json 644"} {
			if !slices.Contains(unity, want) {
				t.Errorf("the Unity package lacks %s: %v", want, unity)
			}
		}
	}
	if sums[0] != sums[1] {
		t.Errorf("two packs of one stage differ:\n%s\n%s", sums[0], sums[1])
	}
	if n := strings.Count(sums[0], "\n"); n != 4 {
		t.Errorf("SHA256SUMS lists %d archives, want 4:\n%s", n, sums[0])
	}
}

// entries lists an archive's entries as "name mode".
func entries(t *testing.T, path string) []string {
	t.Helper()
	var names []string
	walk(t, path, func(name string, mode os.FileMode, _ io.Reader) {
		names = append(names, fmt.Sprintf("%s %o", name, mode))
	})
	return names
}

// walk calls fn with each entry of a .zip or .tar.gz archive: its name,
// permission bits and contents.
func walk(t *testing.T, path string, fn func(name string, mode os.FileMode, r io.Reader)) {
	t.Helper()
	if strings.HasSuffix(path, ".zip") {
		z, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		for _, f := range z.File {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			fn(f.Name, f.Mode().Perm(), r)
			r.Close()
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		} else if err != nil {
			t.Fatal(err)
		}
		fn(h.Name, os.FileMode(h.Mode).Perm(), tr)
	}
}

// TestReleaseArchives checks what make release wrote ($RELEASE_DIR, set by
// make release-check; skipped otherwise): SHA256SUMS matches every
// archive, and each archive's pvsbake prints its version and target —
// linux/amd64 natively, linux/arm64 under qemu-aarch64-static,
// windows/amd64 under Wine (the others are checked by their headers).
func TestReleaseArchives(t *testing.T) {
	dir := os.Getenv("RELEASE_DIR")
	if dir == "" {
		t.Skip("RELEASE_DIR unset: make release-check runs it on make release's archives")
	}
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	unpacked := t.TempDir()
	var archives []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, _ := strings.Cut(sc.Text(), "  ")
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != sum {
			t.Errorf("%s: sha256 %s, SHA256SUMS says %s", name, got, sum)
		}
		archives = append(archives, name)
		unpack(t, filepath.Join(dir, name), unpacked)
	}
	if len(archives) < 7 {
		t.Fatalf("%d archives: want the six targets' and the Unity package", len(archives))
	}
	program := func(target, name string) string {
		m, _ := filepath.Glob(filepath.Join(unpacked, "frontiersets-*-"+target, name))
		if len(m) != 1 {
			t.Fatalf("%s in the %s archive: %v", name, target, m)
		}
		return m[0]
	}
	// frontiersets-VERSION-unity.zip names the release's version.
	var release string
	for _, a := range archives {
		if v, ok := strings.CutSuffix(strings.TrimPrefix(a, "frontiersets-"), "-unity.zip"); ok {
			release = v
		}
	}
	version := func(target string, out []byte, err error) {
		t.Helper()
		if err != nil || release == "" || !strings.HasPrefix(string(out), "pvsbake "+release+" (commit ") ||
			!strings.Contains(string(out), strings.Replace(target, "-", "/", 1)) || !strings.Contains(string(out), "CGO_ENABLED=0") {
			t.Errorf("%s pvsbake --version: %v %q", target, err, out)
		}
	}
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		out, err := exec.Command(program("linux-amd64", "pvsbake"), "--version").Output()
		version("linux-amd64", out, err)
	}
	if _, err := exec.LookPath("qemu-aarch64-static"); err == nil {
		out, err := exec.Command("qemu-aarch64-static", program("linux-arm64", "pvsbake"), "--version").Output()
		version("linux-arm64", out, err)
	}
	for _, target := range []string{"darwin-arm64", "darwin-amd64", "windows-arm64"} {
		suffix := map[bool]string{true: ".exe"}[strings.HasPrefix(target, "windows")]
		b, err := os.ReadFile(program(target, "pvsbake"+suffix))
		if err != nil || len(b) < 1<<20 || !bytes.Contains(b, []byte("CGO_ENABLED=0")) {
			t.Errorf("%s pvsbake: %d bytes, %v", target, len(b), err)
		}
	}
	env := testwine.Env(t, t.TempDir())
	exe := program("windows-amd64", "pvsbake.exe")
	out, code := testwine.Run(t, env, filepath.Dir(exe), "pvsbake.exe", "--version")
	version("windows-amd64", []byte(out), map[bool]error{true: fmt.Errorf("exit %d", code)}[code != 0])
}

// unpack extracts a .zip or .tar.gz archive into dir.
func unpack(t *testing.T, path, dir string) {
	t.Helper()
	walk(t, path, func(name string, mode os.FileMode, r io.Reader) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		b, err := io.ReadAll(r)
		if err == nil {
			err = os.WriteFile(p, b, mode)
		}
		if err != nil {
			t.Fatal(err)
		}
	})
}

var updateMeta = os.Getenv("UPDATE_UNITY_META") != ""

// TestUnityMetas: every file and folder of the Unity package
// (bindings/unity, but for Samples~, which Unity imports into a project,
// and Plugins/, which the release fills) has its .meta file, as
// unityMeta writes it (UPDATE_UNITY_META=1 rewrites them), every GUID
// differs, and a native library's import settings enable its own OS and
// CPU only.
func TestUnityMetas(t *testing.T) {
	root := filepath.Join("..", "..", "bindings", "unity")
	guids := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case d.IsDir() && (rel == "Samples~" || rel == "Plugins"):
			return filepath.SkipDir
		case strings.HasSuffix(rel, ".meta"):
			if _, err := os.Stat(strings.TrimSuffix(p, ".meta")); err != nil {
				t.Errorf("%s: a .meta file of nothing", rel)
			}
			return nil
		}
		want := unityMeta(rel, d.IsDir())
		if updateMeta {
			return os.WriteFile(p+".meta", want, 0o644)
		}
		got, err := os.ReadFile(p + ".meta")
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s.meta: %v; want unityMeta's (UPDATE_UNITY_META=1 go test ./deploy/release writes it)", rel, err)
		}
		g := regexp.MustCompile(`guid: ([0-9a-f]{32})\n`).FindSubmatch(want)
		if g == nil || guids[string(g[1])] != "" {
			t.Errorf("%s: GUID %q not new", rel, g)
		} else {
			guids[string(g[1])] = rel
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ rel, editorOS, player, cpu string }{
		{"Plugins/linux/x86_64/libfrontiersets.so", "Linux", "Linux64", "x86_64"},
		{"Plugins/linux/arm64/libfrontiersets.so", "Linux", "Linux64", "ARM64"},
		{"Plugins/windows/x86_64/frontiersets.dll", "Windows", "Win64", "x86_64"},
	} {
		m := string(unityMeta(tc.rel, false))
		enabled := regexp.MustCompile(`Standalone: (\w+)\n    second:\n      enabled: 1\n      settings:\n        CPU: (\w+)`).FindAllStringSubmatch(m, -1)
		if len(enabled) != 1 || enabled[0][1] != tc.player || enabled[0][2] != tc.cpu || !strings.Contains(m, "OS: "+tc.editorOS+"\n") {
			t.Errorf("%s: players enabled %v, want %s on %s (Editor on %s)\n%s", tc.rel, enabled, tc.player, tc.cpu, tc.editorOS, m)
		}
	}
}
