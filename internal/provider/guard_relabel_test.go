package provider

import (
	"os/exec"
	"strings"
	"testing"
)

// guardRelabelConfig is a promise (on_unschedule = "delete", guard protecting env=prod) and a
// request, both on destinations dev and prod; prod's label, store and the acknowledgements come
// from variables, so that each step changes only terraform.tfvars.
const guardRelabelConfig = `
terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

variable "repo_a" { type = string }
variable "repo_b" { type = string }
variable "prod_env" { default = "prod" }
variable "prod_store" { default = "a" }
variable "promise_ack" { default = null }
variable "request_files" { default = ["a.yaml", "b.yaml"] }
variable "on_unschedule" { default = "delete" }

resource "kratix_state_store" "a" {
  name = "a"
  git  = { url = var.repo_a, branch = "main" }
}

resource "kratix_state_store" "b" {
  name = "b"
  git  = { url = var.repo_b, branch = "main" }
}

resource "kratix_destination" "dev" {
  name        = "dev"
  path        = "dev"
  labels      = { env = "dev" }
  state_store = kratix_state_store.a
}

resource "kratix_destination" "prod" {
  name        = "prod"
  path        = "prod"
  labels      = { env = var.prod_env }
  state_store = var.prod_store == "a" ? kratix_state_store.a : kratix_state_store.b
}

resource "kratix_promise" "p" {
  name                  = "jenkins"
  destinations          = [kratix_destination.dev, kratix_destination.prod]
  destination_selectors = [{ match_expressions = [{ key = "env", operator = "NotIn", values = ["retired"] }] }]
  on_unschedule         = var.on_unschedule
  dependencies          = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: jenkins\n"
  guard = {
    protect     = [{ match_labels = { env = "prod" } }]
    acknowledge = var.promise_ack
  }
}

resource "kratix_resource_request" "r" {
  promise               = kratix_promise.p
  name                  = "r"
  destination_selectors = [{ match_labels = { env = "prod" } }]
  files                 = { for f in var.request_files : f => "kind: ${f}\n" }
  guard                 = { protect = [{ match_labels = { env = "prod" } }] }
}
`

// TestAccGuardRelabel: the guard judges a destination by its labels before and after the
// change. With the real CLI and two file:// repositories: moving the protected destination prod
// to another store is refused; relabelling it env=retired, which unschedules the promise there
// (on_unschedule = "delete") and so would delete its files, is refused as the same deletion by
// a narrowed selector would be, with the acknowledgement worked out here by hand; a request that
// stays on the relabelled destination and drops a file is refused too; the acknowledgement lets
// the relabel through, and the apply removes the promise's files from prod alone. No refused
// plan changes either repository.
func TestAccGuardRelabel(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	repoA, repoB := newFileRepo(t), newFileRepo(t)
	cli := newCLI(t, map[string]string{"main.tf": guardRelabelConfig, "provider.tf": "provider \"kratix\" {}\n"},
		"TF_VAR_repo_a=file://"+repoA, "TF_VAR_repo_b=file://"+repoB)
	// files lists a repository's main branch, read with the git CLI.
	files := func(repo string) string {
		t.Helper()
		out, err := exec.Command("git", "--git-dir", repo, "ls-tree", "-r", "--name-only", "main").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	depsFile := func(d string) string { return d + "/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml" }
	requestFile := func(f string) string { return "prod/resources/default/jenkins/r/instance-configure/5058f/" + f }
	has := func(repo string, want bool, paths ...string) {
		t.Helper()
		listing := "\n" + files(repo) + "\n"
		for _, p := range paths {
			if strings.Contains(listing, "\n"+p+"\n") != want {
				t.Errorf("%s holds %s: %v, want %v; it holds:\n%s", repo, p, !want, want, listing)
			}
		}
	}
	locA := "git+file://" + strings.TrimSuffix(repoA, ".git") + "@main"
	locB := "git+file://" + strings.TrimSuffix(repoB, ".git") + "@main"

	cli.setVars(t)
	cli.apply(t)
	has(repoA, true, depsFile("dev"), depsFile("prod"), requestFile("a.yaml"), requestFile("b.yaml"))
	commitsA, commitsB := commitCount(t, repoA), commitCount(t, repoB)
	unchanged := func(after string) {
		t.Helper()
		if a, b := commitCount(t, repoA), commitCount(t, repoB); a != commitsA || b != commitsB {
			t.Errorf("after %s: %d and %d commits, want %d and %d: a refused plan wrote", after, a, b, commitsA, commitsB)
		}
	}

	// A move of the protected destination to another store takes the promise's files from it.
	cli.setVars(t, `prod_store = "b"`)
	cli.expectPlan(t, 1, "Error: Change Refused by the Guard", `Promise "jenkins": this plan breaks the guard:`,
		"- protected destinations (env=prod) lose files: prod",
		"- prod: moves from "+locA+" prod to "+locB+" prod",
		`guard = { ..., acknowledge = "`+ackOf("kratix_promise", "jenkins", "prod\tmoved\t"+locA+" prod\t"+locB+" prod")+`" }`)
	unchanged("the refused move")

	// The relabel unschedules the promise from prod: the same deletion as a narrowed selector,
	// judged by the labels prod had.
	ackRelabel := ackOf("kratix_promise", "jenkins", "prod\tremoved")
	cli.setVars(t, `prod_env = "retired"`)
	cli.expectPlan(t, 1, "Error: Change Refused by the Guard", `Promise "jenkins": this plan breaks the guard:`,
		"- protected destinations (env=prod) lose files: prod (labelled env=prod before this change)",
		"- prod: every file of the placement is removed",
		`guard = { ..., acknowledge = "`+ackRelabel+`" }`)
	unchanged("the refused relabel")

	// The request stays on prod (misscheduled); dropping a file there in the same plan is refused
	// by the request's own guard, judged by prod's labels before the relabel.
	cli.setVars(t, `prod_env = "retired"`, `promise_ack = "`+ackRelabel+`"`, `request_files = ["a.yaml"]`)
	cli.expectPlan(t, 1, "Error: Change Refused by the Guard", "Request", "this plan breaks the guard:",
		"- protected destinations (env=prod) lose files: prod (labelled env=prod before this change)",
		"- prod: 1 file(s) deleted: "+requestFile("b.yaml"))
	unchanged("the refused file deletion")

	// Acknowledged, the relabel goes through: the promise's files leave prod, nothing else.
	cli.setVars(t, `prod_env = "retired"`, `promise_ack = "`+ackRelabel+`"`)
	cli.expectPlan(t, 2, "Warning: Acknowledged Change Proceeds", `Promise "jenkins": the guard would refuse this change`,
		`acknowledge = "`+ackRelabel+`" lets it through`, "- prod: every file of the placement is removed")
	cli.apply(t)
	has(repoA, false, depsFile("prod"))
	has(repoA, true, depsFile("dev"), requestFile("a.yaml"), requestFile("b.yaml"))
	if got := files(repoB); got != "README.md" {
		t.Errorf("store b holds:\n%s", got)
	}
}

// TestAccGuardRelabelThenDelete: the same walk-around in two plans. prod is relabelled
// env=retired while on_unschedule = "keep": the plan passes (nothing is deleted; the promise is
// kept on prod, misscheduled) and the apply writes nothing. Switching to "delete" then removes the
// promise's files from prod, whose labels are env=retired before and after that plan: it is
// refused all the same, by the labels the files were written under, with the acknowledgement
// worked out by hand; acknowledged, the apply removes them from prod alone.
func TestAccGuardRelabelThenDelete(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	repoA, repoB := newFileRepo(t), newFileRepo(t)
	cli := newCLI(t, map[string]string{"main.tf": guardRelabelConfig, "provider.tf": "provider \"kratix\" {}\n"},
		"TF_VAR_repo_a=file://"+repoA, "TF_VAR_repo_b=file://"+repoB)
	listing := func() string {
		t.Helper()
		out, err := exec.Command("git", "--git-dir", repoA, "ls-tree", "-r", "--name-only", "main").Output()
		if err != nil {
			t.Fatal(err)
		}
		return "\n" + strings.TrimSpace(string(out)) + "\n"
	}
	prodDeps := "\nprod/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml\n"
	devDeps := "\ndev/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml\n"

	cli.setVars(t, `on_unschedule = "keep"`)
	cli.apply(t)
	cli.setVars(t, `on_unschedule = "keep"`, `prod_env = "retired"`)
	commits := gitOpsCommitCount(t, repoA)
	cli.apply(t)
	if got := gitOpsCommitCount(t, repoA); got != commits {
		t.Errorf("the relabel under keep made %d commits, want none but prod's registration record's", got-commits)
	}
	if l := listing(); !strings.Contains(l, prodDeps) {
		t.Fatalf("the relabel under keep removed the promise's file from prod:%s", l)
	}

	ack := ackOf("kratix_promise", "jenkins", "prod\tremoved")
	cli.setVars(t, `on_unschedule = "delete"`, `prod_env = "retired"`)
	cli.expectPlan(t, 1, "Error: Change Refused by the Guard", `Promise "jenkins": this plan breaks the guard:`,
		"- protected destinations (env=prod) lose files: prod (labelled env=prod when its files were written)",
		"- prod: every file of the placement is removed", `guard = { ..., acknowledge = "`+ack+`" }`)
	if got := gitOpsCommitCount(t, repoA); got != commits {
		t.Errorf("the refused plan made %d commits", got-commits)
	}

	cli.setVars(t, `on_unschedule = "delete"`, `prod_env = "retired"`, `promise_ack = "`+ack+`"`)
	cli.apply(t)
	l := listing()
	if strings.Contains(l, prodDeps) || !strings.Contains(l, devDeps) {
		t.Errorf("after the acknowledged apply, want the promise's file gone from prod and kept on dev:%s", l)
	}
}
