package provider

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// importScene is a file:// repository holding state store gitops, destination w1 (labelled
// env = var.env), promise elastic-cloud for env=dev and its request default/example, applied
// once, driven with the real CLI.
type importScene struct {
	t    *testing.T
	repo string
	cli  *cli
}

func newImportScene(t *testing.T) *importScene {
	t.Helper()
	requireAcceptance(t)
	repo := filepath.Join(t.TempDir(), "gitops.git")
	gitRun(t, "", "init", "--quiet", "--bare", "-b", "main", repo)
	main := `
terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

provider "kratix" {}

variable "env" {
  type    = string
  default = "dev"
}

resource "kratix_state_store" "s" {
  name = "gitops"
  git  = { url = "file://` + repo + `" }
}

resource "kratix_destination" "w" {
  name        = "w1"
  path        = "w1"
  labels      = { env = var.env }
  state_store = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name                  = "elastic-cloud"
  destinations          = [kratix_destination.w]
  destination_selectors = [{ match_labels = { env = "dev" } }]
  dependencies          = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: elastic\n"
}

resource "kratix_resource_request" "r" {
  promise   = kratix_promise.p
  name      = "example"
  documents = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: example\n"
}
`
	s := &importScene{t: t, repo: repo, cli: newCLI(t, map[string]string{"main.tf": main})}
	s.run("apply", "-auto-approve")
	return s
}

// run runs a terraform command that must succeed.
func (s *importScene) run(args ...string) string {
	s.t.Helper()
	out, err := s.cli.run(args...)
	if err != nil {
		s.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// planFails runs a plan that must fail, saying each group's parts in order, and write nothing.
func (s *importScene) planFails(groups ...[]string) {
	s.t.Helper()
	before := commitCount(s.t, s.repo)
	out, err := s.cli.run("plan")
	if err == nil {
		s.t.Errorf("the plan succeeded; it must fail saying %q:\n%s", groups, out)
	}
	for _, parts := range groups {
		if err != nil && !inOrder(parts...).MatchString(out) {
			s.t.Errorf("the plan does not say, in order:\n  %s\n\n%s", strings.Join(parts, "\n  "), out)
		}
	}
	if after := commitCount(s.t, s.repo); after != before {
		s.t.Errorf("the failed plan was followed by %d commits", after-before)
	}
}

// planCode runs `terraform plan -detailed-exitcode`: 0 for an empty plan, 2 for changes.
func (s *importScene) planCode() (string, int) {
	s.t.Helper()
	out, err := s.cli.run("plan", "-detailed-exitcode")
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out, exit.ExitCode()
	} else if err != nil {
		s.t.Fatal(err)
	}
	return out, 0
}

func (s *importScene) write(name, content string) {
	s.t.Helper()
	if err := os.WriteFile(filepath.Join(s.cli.dir, name), []byte(content), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// TestAccImportIDMismatch: for each resource kind, an import whose id names another object than
// the configuration (a promise imported as "elastic-clod" for name = "elastic-cloud", and so on)
// fails the first plan, with an import block and with `terraform import`, naming both values at
// the configured attribute, and nothing is written; imported under the configured name, it is
// adopted and the plan after the apply is empty.
func TestAccImportIDMismatch(t *testing.T) {
	t.Parallel()
	s := newImportScene(t)
	for _, c := range []struct {
		address, wrong, right string
		says                  []string
	}{
		{"kratix_state_store.s", "gitopz", "gitops", []string{
			"Error: Import ID Does Not Match Configuration", "with kratix_state_store.s", `name = "gitops"`,
			`State store was imported as "gitopz", but the configuration names it "gitops"`,
		}},
		{"kratix_destination.w", "w2", "w1", []string{
			"Error: Import ID Does Not Match Configuration", "with kratix_destination.w", `name = "w1"`,
			`Destination was imported as "w2", but the configuration names it "w1"`,
		}},
		{"kratix_promise.p", "elastic-clod", "elastic-cloud", []string{
			"Error: Import ID Does Not Match Configuration", "with kratix_promise.p", `name = "elastic-cloud"`,
			`Promise was imported as "elastic-clod", but the configuration names it "elastic-cloud"`,
		}},
		{"kratix_resource_request.r", "elastic-cloud/default/exampel", "elastic-cloud/default/example", []string{
			"Error: Import ID Does Not Match Configuration", "with kratix_resource_request.r", `name = "example"`,
			`request elastic-cloud/default/exampel was imported with name "exampel"`, `the configuration gives name "example"`,
			"import it as elastic-cloud/default/example",
		}},
	} {
		t.Run(c.address, func(t *testing.T) {
			s.t = t
			s.run("state", "rm", c.address)
			s.write("import.tf", "import {\n  to = "+c.address+"\n  id = \""+c.wrong+"\"\n}\n")
			s.planFails(c.says)
			if err := os.Remove(filepath.Join(s.cli.dir, "import.tf")); err != nil {
				t.Fatal(err)
			}
			s.run("import", c.address, c.wrong)
			s.planFails(c.says)
			s.run("state", "rm", c.address)
			s.run("import", c.address, c.right)
			s.run("apply", "-auto-approve")
			if out, code := s.planCode(); code != 0 {
				t.Errorf("after importing %s as %s and applying, the plan is not empty (exit %d):\n%s", c.address, c.right, code, out)
			}
		})
	}
}

// TestAccImportRequestAsWarningsSpellIt: a request has one spelling, <promise>/<namespace>/<name>:
// its commit messages and a plan warning print it so, and importing the spelling the warning
// printed adopts the request where it is: the apply writes nothing and the next plan is empty.
// The other order, default/elastic-cloud/example, fails the first plan naming both values of
// the promise and of the namespace, instead of planning a replacement.
func TestAccImportRequestAsWarningsSpellIt(t *testing.T) {
	t.Parallel()
	s := newImportScene(t)
	const id = "elastic-cloud/default/example"
	log, err := exec.Command("git", "--git-dir", s.repo, "log", "--format=%s", "main").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "Update from: request/"+id+"\n") {
		t.Errorf("no commit message names the request %s:\n%s", id, log)
	}

	// w1 relabelled: the request stays there, misscheduled, and the plan's warning names it.
	out, err := s.cli.run("plan", "-var", "env=prod")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Request (\S+) stays on destination "w1"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the plan does not warn that the request stays on w1:\n%s", out)
	}
	if m[1] != id {
		t.Errorf("the warning spells the request %s; its id is %s", m[1], id)
	}

	s.run("state", "rm", "kratix_resource_request.r")
	s.run("import", "kratix_resource_request.r", m[1])
	before := bareTip(t, s.repo)
	out = s.run("plan", "-out=tfplan")
	if after := showPlan(t, s.cli, "tfplan")["kratix_resource_request.r"].Change; strings.Join(after.Actions, ",") != "update" || after.After["destination"] != "w1" {
		t.Errorf("importing %s plans %v onto %v, want an update on w1:\n%s", m[1], after.Actions, after.After["destination"], out)
	}
	s.run("apply", "tfplan")
	// The import takes the request's owner record over (issue 39): that commit changes the
	// registry alone; the layout is untouched.
	if changed := layoutChangedSince(t, s.repo, before); len(changed) != 0 {
		t.Errorf("adopting the request changed %v, want nothing of the layout", changed)
	}
	if out, code := s.planCode(); code != 0 {
		t.Errorf("the plan after adopting %s is not empty (exit %d):\n%s", m[1], code, out)
	}

	s.run("state", "rm", "kratix_resource_request.r")
	s.run("import", "kratix_resource_request.r", "default/elastic-cloud/example")
	s.planFails([]string{
		"Error: Import ID Does Not Match Configuration", "with kratix_resource_request.r", "promise = kratix_promise.p",
		`promise: request default/elastic-cloud/example was imported with promise "default"`,
		`the configuration gives promise "elastic-cloud"`, "The promise and the namespace are swapped",
		"import it as elastic-cloud/default/example",
	}, []string{
		"Error: Import ID Does Not Match Configuration", "with kratix_resource_request.r",
		`namespace: request default/elastic-cloud/example was imported with namespace "elastic-cloud"`,
		`the configuration gives namespace "default"`, "The promise and the namespace are swapped",
		"import it as elastic-cloud/default/example",
	})
}
