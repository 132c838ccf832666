package provider

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestAccRejectedPush_quotesTheServer: a pre-receive hook refuses the push of a kratix_promise.
// The apply fails with the hook's line as the hook printed it and the advice for a refused push,
// nothing lands on the branch, and once the hook is gone the next apply writes the promise.
func TestAccRejectedPush_quotesTheServer(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	const hookLine = "GL-HOOK-ERR: commits to main need a ticket id (see https://wiki.example/x)"
	ts := newTestStore(t, "git-http")
	repo := storeName(ts)
	c := newCLI(t, map[string]string{
		"main.tf":     destinationAndPromise(ts),
		"versions.tf": "terraform {\n  required_providers {\n    kratix = { source = \"promise-platform/kratix\" }\n  }\n}\n",
	})
	if out, err := c.run("apply", "-auto-approve", "-target=kratix_destination.d"); err != nil {
		t.Fatalf("creating the destination: %v\n%s", err, out)
	}
	if err := gitServer.SetHook(repo, "pre-receive", "#!/bin/sh\necho '"+hookLine+"' >&2\nexit 1\n"); err != nil {
		t.Fatal(err)
	}
	before := ts.mark(t)
	out, err := c.run("apply", "-auto-approve")
	if i := strings.Index(out, "Error:"); i >= 0 {
		t.Logf("the refused apply's diagnostic:\n%s", out[i:])
	}
	if err == nil {
		t.Fatal("the apply succeeded although the server refuses every push")
	}
	for what, pattern := range map[string]string{
		"the summary":                "Cannot Write Promise",
		"the kind":                   "push rejected",
		"the hook's line, verbatim":  regexp.QuoteMeta(hookLine),
		"the advice about the hook":  "A server hook: do what its message asks",
		"the advice about the rules": "set git.branch to a branch that takes direct pushes",
	} {
		if !wrapped(pattern).MatchString(out) {
			t.Errorf("the diagnostic lacks %s (%q)", what, pattern)
		}
	}
	const file = "worker-1/dependencies/app/5058f/static/app-dependencies.yaml"
	if w := ts.writesSince(t, before); len(w) != 0 {
		t.Errorf("the refused push left commits on the branch: %v", w)
	}
	if _, ok := ts.read(t, file); ok {
		t.Errorf("the refused repository holds %s", file)
	}

	if err := gitServer.SetHook(repo, "pre-receive", ""); err != nil {
		t.Fatal(err)
	}
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply once the hook is gone: %v\n%s", err, out)
	}
	if w := ts.writesSince(t, before); !reflect.DeepEqual(w, []string{"Update from: promise/app"}) {
		t.Errorf("the apply after the hook was removed made the commits %q, want one %q", w, "Update from: promise/app")
	}
	for path, want := range workerFiles("") {
		if got, ok := ts.read(t, path); !ok || string(got) != want {
			t.Errorf("%s after the second apply: %q (exists %v), want %q", path, got, ok, want)
		}
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the second apply is not empty: %v\n%s", err, out)
	}
}
