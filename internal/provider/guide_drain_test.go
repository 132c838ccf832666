package provider

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// TestAccGuideDrain walks the guide "Taking a destination out of service" with its example, the
// real Terraform CLI and a file:// repository: worker-1 cordoned (NoSchedule: nothing in the
// repository changes, a new request would go elsewhere), drained (NoExecute: exactly the
// requests on worker-1 that do not tolerate the taint move, each to its best remaining choice,
// in one commit that renames its file; the tolerating request and the promise's files stay),
// then brought back (nothing moves back) and one request moved back on purpose with -replace.
// Where each request goes is worked out here with the test's own rendezvous model
// (rendezvousOrder). The guard's answer to a drain is checked as the guide states it. Last, every
// warning or error paragraph the guide quotes must be one the provider printed in this run, so
// the guide cannot go stale silently.
func TestAccGuideDrain(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	src, err := os.ReadFile("../../examples/guides/taking-a-destination-out-of-service/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile("../../templates/guides/taking-a-destination-out-of-service.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(t.TempDir(), "gitops.git")
	gitRun(t, "", "init", "--quiet", "--bare", "-b", "main", repo)
	cli := newCLI(t, map[string]string{"main.tf": string(src), "provider.tf": "provider \"kratix\" {}\n"},
		"TF_VAR_repository_url=file://"+repo)
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"--git-dir", repo}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	// gitOps is what the repository holds of the GitOps layout, and gitOpsCommits the subjects of
	// the commits since rev that wrote it: the destinations' registration records (issue 39),
	// which a change of taints rewrites in commits of their own, are left out (acctest.GitOpsOnly).
	gitOps := func() string {
		var out []string
		for _, l := range strings.Split(git("ls-tree", "-r", "main"), "\n") {
			if f := strings.Split(l, "\t"); len(f) == 2 && !acctest.IsRecord(f[1]) {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	gitOpsCommits := func(rev string) []string {
		if out := git("log", "--format=%s", rev+"..main"); out != "" {
			return acctest.GitOpsOnly(strings.Split(out, "\n"))
		}
		return nil
	}
	// said collects everything the provider said in this run, whitespace folded: the human plan
	// output (wrapped at 78 columns) and each diagnostic of the JSON plans (Terraform folds
	// warnings of one summary in the human output: "and one more similar warning elsewhere").
	var said []string
	plan := func(code int, parts ...string) string {
		t.Helper()
		out, got := cli.planCode(t)
		if got != code {
			t.Fatalf("plan -detailed-exitcode = %d, want %d\n%s", got, code, out)
		}
		if len(parts) > 0 && !inOrder(parts...).MatchString(out) {
			t.Errorf("the plan does not say, in order:\n  %s\n\n%s", strings.Join(parts, "\n  "), out)
		}
		said = append(said, fold(out))
		return out
	}
	diagnostics := func() map[string][]string {
		t.Helper()
		out, _ := cli.run("plan", "-json")
		got := map[string][]string{}
		for _, line := range strings.Split(out, "\n") {
			var m struct {
				Type       string `json:"type"`
				Diagnostic struct{ Summary, Detail string }
			}
			if json.Unmarshal([]byte(line), &m) != nil || m.Type != "diagnostic" {
				continue
			}
			got[m.Diagnostic.Summary] = append(got[m.Diagnostic.Summary], m.Diagnostic.Detail)
			said = append(said, fold(m.Diagnostic.Detail))
		}
		return got
	}
	setMaintenance := func(m string) { cli.setVars(t, "maintenance = "+m) }
	// placed reads from the repository which destination folder holds each request.
	re := regexp.MustCompile(`^(worker-\d)/resources/default/postgres/([^/]+)/`)
	placed := func() map[string]string {
		t.Helper()
		out := map[string]string{}
		for _, p := range strings.Split(git("ls-tree", "-r", "--name-only", "main"), "\n") {
			if m := re.FindStringSubmatch(p); m != nil {
				if was, ok := out[m[2]]; ok && was != m[1] {
					t.Errorf("request %s has files in both %s and %s", m[2], was, m[1])
				}
				out[m[2]] = m[1]
			}
		}
		return out
	}
	nextRequest := func() string {
		t.Helper()
		out, err := cli.run("output", "-json", "next_request")
		if err != nil {
			t.Fatalf("terraform output: %v\n%s", err, out)
		}
		return out
	}
	all, rest := []string{"worker-1", "worker-2", "worker-3"}, []string{"worker-2", "worker-3"}
	first := func(name string, among []string) string {
		return rendezvousOrder("default/postgres/"+name, among, nil)[0]
	}
	names := []string{"audit", "billing", "events", "metrics", "orders", "search", "users"}

	// In service: each request on its first choice.
	setMaintenance("{}")
	cli.apply(t)
	start := placed()
	want := map[string]string{}
	for _, n := range names {
		want[n] = first(n, all)
	}
	if !maps.Equal(start, want) {
		t.Fatalf("requests are in\n  %v\nwant (rendezvous order)\n  %v", start, want)
	}
	var leaving []string // the requests the drain must move
	for _, n := range names {
		if start[n] == "worker-1" && n != "metrics" {
			leaving = append(leaving, n)
		}
	}
	if len(leaving) == 0 || start["metrics"] != "worker-1" {
		t.Fatalf("the guide needs requests on worker-1, metrics among them: %v", start)
	}
	if got := nextRequest(); !strings.Contains(got, `"destination":"`+first("catalog", all)+`"`) {
		t.Errorf("next_request in service = %s, want %s", got, first("catalog", all))
	}

	// Cordon: nothing changes in the repository; a new request would go to its next choice.
	setMaintenance(`{ "worker-1" = "NoSchedule" }`)
	tree := gitOps()
	plan(2, "Warning: Destination Cordoned", `Destination "worker-1" is tainted maintenance:NoSchedule: nothing new is`)
	cli.apply(t)
	if got := gitOps(); got != tree {
		t.Errorf("the cordon changed the repository's files:\n%s\n->\n%s", tree, got)
	}
	if got := nextRequest(); !strings.Contains(got, `"destination":"`+first("catalog", rest)+`"`) ||
		!strings.Contains(got, `worker-1: tainted maintenance:NoSchedule, not tolerated`) {
		t.Errorf("next_request while worker-1 is cordoned = %s, want %s and worker-1's taint as the reason", got, first("catalog", rest))
	}
	plan(0)

	// The guard: a drain is a move off the destination, so guard = {} refuses it.
	setMaintenance(`{ "worker-1" = "NoExecute" }`)
	withGuard := func(guard string) {
		t.Helper()
		g := strings.Replace(string(src), "  name      = each.key\n", "  name      = each.key\n  guard     = "+guard+"\n", 1)
		if g == string(src) {
			t.Fatal("the example's requests have no `name      = each.key` line to add a guard after")
		}
		if err := os.WriteFile(filepath.Join(cli.dir, "main.tf"), []byte(g), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	withGuard("{}")
	plan(1, "Error: Change Refused by the Guard", "Request postgres/default/"+leaving[0]+": this plan breaks the guard:",
		`- the request moves off destination "worker-1"`)
	if err := os.WriteFile(filepath.Join(cli.dir, "main.tf"), src, 0o600); err != nil {
		t.Fatal(err)
	}

	// Drain: the requests on worker-1 that do not tolerate the taint move to their best remaining
	// choice; metrics and the promise's files stay.
	plan(2, "Warning: Destination Drained", `Destination "worker-1" is tainted maintenance:NoExecute: in this apply each of the`,
		"Warning: Promise Scheduling", `Destination "worker-1" is drained of promise "postgres"`, "Warning: Request Scheduling")
	diags := diagnostics()
	var moves []string
	for _, n := range leaving {
		moves = append(moves, `Destination "worker-1" is tainted maintenance:NoExecute, which request postgres/default/`+n+
			` does not tolerate: the request moves to "`+first(n, rest)+`". Its files are written there first, then removed from "worker-1".`)
	}
	if got := diags["Request Scheduling"]; !sameSet(got, moves) {
		t.Errorf("the drain's request warnings are\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(moves, "\n  "))
	}
	before := git("rev-parse", "main")
	cli.apply(t)
	want = maps.Clone(start)
	for _, n := range leaving {
		want[n] = first(n, rest)
	}
	drained := placed()
	if !maps.Equal(drained, want) {
		t.Errorf("after the drain requests are in\n  %v\nwant\n  %v", drained, want)
	}
	// Each move is one commit in which git sees the file renamed, byte for byte.
	log := git("log", "--format=%s", "--name-status", "-M100%", before+"..main")
	for _, n := range leaving {
		file := "/resources/default/postgres/" + n + "/instance-configure/5058f/" + n + ".yaml"
		// The request's owner record moves its entry from worker-1's folder to the new one.
		rename := "Update from: request/postgres/default/" + n + "\n\nM\t.kratix-registry/owners/request_postgres_default_" + n + ".yaml\n" +
			"R100\tworker-1" + file + "\t" + first(n, rest) + file
		if !strings.Contains(log, rename) {
			t.Errorf("the drain's commits do not rename %s's file from worker-1 to %s:\n%s", n, first(n, rest), log)
		}
	}
	if n := len(gitOpsCommits(before)); n != len(leaving) {
		t.Errorf("the drain made %d commits, want %d (one per moved request):\n%s", n, len(leaving), log)
	}
	if !slices.Contains(strings.Split(git("ls-tree", "-r", "--name-only", "main"), "\n"), "worker-1/dependencies/postgres/5058f/static/postgres-dependencies.yaml") {
		t.Error("the promise's files left worker-1; on_unschedule = \"keep\" keeps them")
	}
	plan(0, `Destination "worker-1" is drained of promise "postgres"`)

	// Every destination drained (plan only): no request has anywhere to go, so each stays, and the
	// example's check "drained" fails.
	setMaintenance(`{ "worker-1" = "NoExecute", "worker-2" = "NoExecute", "worker-3" = "NoExecute" }`)
	plan(2, "Warning: Request Scheduling", "Warning: Check block assertion failed", "A request is still on a destination tainted NoExecute.")
	diags = diagnostics()
	var stays []string
	for _, n := range names {
		if n != "metrics" {
			stays = append(stays, `Destination "`+drained[n]+`" is tainted maintenance:NoExecute, which request postgres/default/`+n+
				" does not tolerate, but no other destination can take it: it stays there until one can.\n\n"+
				"worker-1: tainted maintenance:NoExecute, not tolerated\nworker-2: tainted maintenance:NoExecute, not tolerated\n"+
				"worker-3: tainted maintenance:NoExecute, not tolerated")
		}
	}
	if got := diags["Request Scheduling"]; !sameSet(got, stays) {
		t.Errorf("with every destination drained the request warnings are\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(stays, "\n  "))
	}
	if got := diags["Check block assertion failed"]; !slices.Equal(got, []string{"A request is still on a destination tainted NoExecute."}) {
		t.Errorf("check \"drained\" said %q", got)
	}

	// Back in service: nothing moves back, nothing is written.
	setMaintenance("{}")
	head := git("rev-parse", "main")
	out := plan(2)
	if regexp.MustCompile(`~ destination +=.* -> "worker-`).MatchString(out) {
		t.Errorf("bringing worker-1 back moves a request:\n%s", out)
	}
	cli.apply(t)
	if got := gitOpsCommits(head); len(got) > 0 {
		t.Errorf("bringing worker-1 back committed: %s", git("log", "--format=%s", "--name-status", head+"..main"))
	}
	if got := placed(); !maps.Equal(got, drained) {
		t.Errorf("after bringing worker-1 back requests are in\n  %v\nwant (as drained)\n  %v", got, drained)
	}
	if got := nextRequest(); !strings.Contains(got, `"destination":"`+first("catalog", all)+`"`) {
		t.Errorf("next_request back in service = %s, want %s", got, first("catalog", all))
	}
	plan(0)

	// Moving one back on purpose: -replace deletes it where it is, then creates it on its first choice.
	back := leaving[0]
	head = git("rev-parse", "main")
	if out, err := cli.run("apply", "-auto-approve", `-replace=kratix_resource_request.db["`+back+`"]`); err != nil {
		t.Fatalf("terraform apply -replace: %v\n%s", err, out)
	}
	if got := placed()[back]; got != "worker-1" {
		t.Errorf("after -replace %s is on %s, want worker-1", back, got)
	}
	if got, want := git("log", "--reverse", "--format=%s", head+"..main"),
		"Delete from: request/postgres/default/"+back+"\nUpdate from: request/postgres/default/"+back; got != want {
		t.Errorf("-replace committed\n%s\nwant\n%s", got, want)
	}

	// The guide quotes only what the provider said.
	quoted := quotedDiagnostics(string(guide))
	if len(quoted) < 5 {
		t.Fatalf("the guide quotes %d warning or error paragraphs, want at least 5: %q", len(quoted), quoted)
	}
	t.Logf("the guide quotes %d warning or error paragraphs", len(quoted))
	corpus := strings.Join(said, "\n")
	for _, q := range quoted {
		if !strings.Contains(corpus, q) {
			t.Errorf("the guide quotes a paragraph the provider did not print in this run:\n  %s", q)
		}
	}
}

// quotedDiagnostics returns, whitespace folded, every paragraph the guide's code blocks quote
// under a "Warning: " or "Error: " line: the paragraphs after the title and the indented
// "with ... on ..." lines, up to the next title, the end of the block or a "(and ...)" line.
// Terraform's own warning about development overrides is not quoted.
func quotedDiagnostics(md string) []string {
	var out []string
	inBlock, inDiag := false, false
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, fold(strings.Join(para, " ")))
		}
		para = nil
	}
	for _, line := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			flush()
			inBlock, inDiag = !inBlock, false
		case !inBlock:
		case strings.HasPrefix(line, "Warning: ") || strings.HasPrefix(line, "Error: "):
			flush()
			inDiag = true
		case !inDiag:
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, " "):
			flush() // a paragraph ends; the context lines are indented
		case strings.HasPrefix(line, "(and ") || strings.HasPrefix(line, "..."):
			flush()
			inDiag = false
		default:
			para = append(para, line)
		}
	}
	flush()
	return out
}

// fold folds every run of white space into one space.
func fold(s string) string { return strings.Join(strings.Fields(s), " ") }

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
