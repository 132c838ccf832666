package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/guardattr"
)

// TestDocsAgreeOnBranchDefault: every page of docs/ that describes a git store's `branch`
// attribute gives the default the provider applies, `main` (the value is written here, not read
// from the code), and every example that sets a branch sets that one.
func TestDocsAgreeOnBranchDefault(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("../../docs/*/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("docs not found: %v", err)
	}
	described := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(line, "- `branch` (String)") || strings.TrimSpace(line) == "- `branch` (String)" {
				continue // a line with no description (an object-typed list's element, as data.kratix_destinations lists it) says nothing of a default
			}
			described++
			if !strings.Contains(line, "`main` when unset") {
				t.Errorf("%s: %q does not give the default branch, main", filepath.Base(page), line)
			}
		}
	}
	if described < 4 { // the state store, and the store inside a destination, promise and request
		t.Errorf("the branch attribute is described on %d pages, want at least 4", described)
	}
	setBranch := regexp.MustCompile(`(?m)^\s*branch\s*=\s*"([^"]*)"`)
	err = filepath.WalkDir("../../examples", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".tf" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range setBranch.FindAllStringSubmatch(string(b), -1) {
			if m[1] != "main" {
				t.Errorf("%s sets branch = %q; the examples use the default, main", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDocsRequestGuardNamesOnlyRequests: the request's guard describes what a request has. A
// request has no on_unschedule and lives on one destination, so its guard text must not speak of
// misscheduled files kept by on_unschedule, of a pool that destinations leave without loss, or
// of the labels a promise's files were written under.
func TestDocsRequestGuardNamesOnlyRequests(t *testing.T) {
	t.Parallel()
	g := guardattr.RequestSchema()
	texts := []string{g.MarkdownDescription}
	for name, a := range g.Attributes {
		texts = append(texts, name+": "+a.GetMarkdownDescription())
	}
	for _, text := range texts {
		for _, promiseOnly := range []string{"on_unschedule", "promise's files", "lose nothing", "A promise"} {
			if strings.Contains(text, promiseOnly) {
				t.Errorf("the request's guard says %q, which only a promise has:\n%s", promiseOnly, text)
			}
		}
	}
	if !strings.Contains(g.MarkdownDescription, "move the request off its destination") {
		t.Errorf("the request's guard does not say that it refuses a move off the destination:\n%s", g.MarkdownDescription)
	}
}
