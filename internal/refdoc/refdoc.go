// Package refdoc writes and checks the commands' reference pages (docs/commands),
// from their cobra definitions; only tests import it, so the commands do not
// link the doc generator.
package refdoc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// ReferencePages returns the reference page of root and of each of its
// commands, in Markdown, by file name (pvsbake.md, pvsbake_bake.md, …):
// synopsis, description, flags with their units and defaults, as cobra's
// doc generator writes them from the command definitions, with no date.
func ReferencePages(root *cobra.Command) (map[string][]byte, error) {
	pages := map[string][]byte{}
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c != root {
			return nil
		}
		c.DisableAutoGenTag = true
		var b bytes.Buffer
		if err := doc.GenMarkdownCustom(c, &b, func(s string) string { return s }); err != nil {
			return err
		}
		pages[strings.ReplaceAll(c.CommandPath(), " ", "_")+".md"] = b.Bytes()
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	return pages, walk(root)
}

// CheckReferencePages compares root's reference pages with those in dir
// and, when update is set, writes them there instead. Errors name the first
// page that differs or is missing.
func CheckReferencePages(root *cobra.Command, dir string, update bool) error {
	pages, err := ReferencePages(root)
	if err != nil {
		return err
	}
	for name, b := range pages {
		path := filepath.Join(dir, name)
		if update {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				return err
			}
			continue
		}
		old, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(old, b) {
			return fmt.Errorf("%s is not the page the command definitions give: run make docs", path)
		}
	}
	return nil
}
