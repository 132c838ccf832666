package provider

import (
	"slices"
	"strings"
	"testing"
)

// TestAccGuardJudgesDestroy: `terraform destroy -target` of a destination destroys the promise
// that depends on it, and with it the promise's files on every destination. The guard judges
// that destroy like a selector change that removes every placement: refused at plan while a
// protected destination would lose files (nothing written, the error counts the files and prints
// the acknowledgement), then let through by that acknowledgement once the state holds it.
func TestAccGuardJudgesDestroy(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	onStores(t, func(t *testing.T, kind string) {
		ts := newTestStore(t, kind)
		config := func(ack string) string {
			if ack != "" {
				ack = "\n    acknowledge = \"" + ack + "\""
			}
			return ts.provider + cliRequiredProviders + `
resource "kratix_state_store" "s" {
` + ts.store + `
}

resource "kratix_destination" "prod" {
  name        = "prod"
  path        = "prod"
  labels      = { env = "prod" }
  state_store = kratix_state_store.s
}

resource "kratix_destination" "dev" {
  name        = "dev"
  path        = "dev"
  labels      = { env = "dev" }
  state_store = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name         = "p"
  destinations = [kratix_destination.prod, kratix_destination.dev]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"
  guard = {
    protect = [{ match_labels = { env = "prod" } }]` + ack + `
  }
}
`
		}
		deps := func(d string) string { return d + "/dependencies/p/5058f/static/p-dependencies.yaml" }
		canaries := []string{
			"dev/dependencies/kratix-canary-namespace.yaml", "dev/resources/kratix-canary-configmap.yaml",
			"prod/dependencies/kratix-canary-namespace.yaml", "prod/resources/kratix-canary-configmap.yaml",
		}
		all := append([]string{deps("dev"), deps("prod")}, canaries...)
		slices.Sort(all)
		expectHeld := func(step string, want []string) {
			t.Helper()
			got := slices.DeleteFunc(ts.list(t), func(f string) bool { return f == "README.md" }) // a repository's seed
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: the store holds\n  %s\nwant\n  %s", step, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		}
		c := newCLI(t, map[string]string{"main.tf": config("")})
		if out, err := c.run("apply", "-auto-approve"); err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		expectHeld("after the apply", all)

		// Written out by hand: the promise loses its placement on both destinations.
		ack := ackOf("kratix_promise", "p", "dev\tremoved", "prod\tremoved")
		mark := ts.mark(t)
		out, err := c.run("destroy", "-auto-approve", "-target=kratix_destination.prod")
		if err == nil {
			t.Fatalf("the targeted destroy went through:\n%s", out)
		}
		if !inOrder("Error: Destroy Refused by the Guard", `Promise "p": destroying it deletes 2 file(s) on 2 destination(s)`,
			"protected destinations (env=prod) lose files: prod", "- dev: every file of the placement is removed",
			"- prod: every file of the placement is removed", `acknowledge = "`+ack+`"`, "Nothing was deleted.").MatchString(out) {
			t.Errorf("the refusal does not say what the issue needs:\n%s", out)
		}
		if w := ts.writesSince(t, mark); len(w) > 0 {
			t.Errorf("the refused destroy wrote to the store: %v", w)
		}
		expectHeld("after the refused destroy", all)

		// The acknowledgement applied changes no file; the destroy then proceeds, and warns.
		c.write(t, "main.tf", config(ack))
		mark = ts.mark(t)
		if out, err := c.run("apply", "-auto-approve"); err != nil {
			t.Fatalf("apply of the acknowledgement: %v\n%s", err, out)
		}
		if w := ts.writesSince(t, mark); len(w) > 0 {
			t.Errorf("applying the acknowledgement wrote to the store: %v", w)
		}
		out, err = c.run("destroy", "-auto-approve", "-target=kratix_destination.prod")
		if err != nil {
			t.Fatalf("the acknowledged destroy: %v\n%s", err, out)
		}
		if !inOrder("Warning: Acknowledged Destroy Proceeds", `Promise "p": destroying it deletes 2 file(s) on 2 destination(s)`).MatchString(out) {
			t.Errorf("the acknowledged destroy does not warn:\n%s", out)
		}
		// The destination is destroyed with cleanup = "none": its canaries stay, as Kratix's do.
		expectHeld("after the acknowledged destroy", canaries)
	})
}

// TestAccGuardDeposedObject: an apply interrupted in a create_before_destroy replacement leaves
// the old promise deposed, and the next plan destroys it from its state alone, which no apply can
// change first. The guard refuses that destroy like any other, so its error names the provider
// block's destroy_acknowledgements, which let exactly it through.
func TestAccGuardDeposedObject(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "git-http")
	config := func(providerAcks string) string {
		provider := ts.provider
		if providerAcks != "" {
			provider = strings.Replace(provider, "provider \"kratix\" {", "provider \"kratix\" {\n  destroy_acknowledgements = ["+providerAcks+"]", 1)
		}
		return provider + cliRequiredProviders + `
variable "fail" {
  type    = bool
  default = false
}

resource "kratix_state_store" "s" {
` + ts.store + `
}

resource "kratix_destination" "prod" {
  name        = "prod"
  path        = "prod"
  state_store = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name         = "p"
  destinations = [kratix_destination.prod]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"
  guard        = { protect = [] }
  lifecycle {
    create_before_destroy = true
  }
}

# Fails at apply, after the new promise is created and before the old one is destroyed.
resource "kratix_state_store" "unreachable" {
  count = var.fail ? 1 : 0
  name  = "unreachable-${kratix_promise.p.id}"
  git   = { url = "file:///nonexistent/kratix-guard-deposed.git" }
}
`
	}
	c := newCLI(t, map[string]string{"main.tf": config("")})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if out, err := c.run("apply", "-auto-approve", "-replace=kratix_promise.p", "-var", "fail=true"); err == nil {
		t.Fatalf("the interrupted apply succeeded:\n%s", out)
	}
	ack := ackOf("kratix_promise", "p", "prod\tremoved")
	out, err := c.run("plan")
	if err == nil {
		t.Fatalf("the plan destroying the deposed promise went through:\n%s", out)
	}
	if !inOrder("(deposed object", "Error: Destroy Refused by the Guard",
		"destroy_acknowledgements = [\""+ack+"\"]").MatchString(out) {
		t.Errorf("the refusal does not name the provider's destroy_acknowledgements:\n%s", out)
	}
	c.write(t, "main.tf", config(`"`+ack+`"`))
	out, err = c.run("apply", "-auto-approve")
	if err != nil {
		t.Fatalf("the acknowledged apply: %v\n%s", err, out)
	}
	if !inOrder("Warning: Acknowledged Destroy Proceeds", `"`+ack+`" in the provider's destroy_acknowledgements lets it through`).MatchString(out) {
		t.Errorf("the acknowledged destroy does not say what let it through:\n%s", out)
	}
}
