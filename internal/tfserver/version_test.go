package tfserver

import (
	"os"
	"regexp"
	"testing"
)

// reviewed are the module versions this package was last checked against: it does by hand what
// the framework does for the requests it answers, and builds the framework's internal
// private-state type (private.go).
var reviewed = map[string]string{
	"github.com/hashicorp/terraform-plugin-framework": "v1.19.0",
	"github.com/hashicorp/terraform-plugin-go":        "v0.31.0",
}

// TestFrameworkVersionReviewed fails when go.mod requires another version of the framework or of
// the protocol package than the one this package was reviewed against.
func TestFrameworkVersionReviewed(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for module, want := range reviewed {
		m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(module) + `\s+(\S+)`).FindSubmatch(mod)
		if m == nil {
			t.Errorf("go.mod does not require %s: review internal/tfserver (see below)", module)
			continue
		}
		if got := string(m[1]); got != want {
			t.Errorf("go.mod requires %s %s; internal/tfserver was reviewed against %s. To review it:\n"+
				"  1. Read the framework's changes between the two versions (its CHANGELOG and the diff of\n"+
				"     internal/fwserver: server_readresource.go, server_planresourcechange.go,\n"+
				"     server_createresource.go, server_upgraderesourcestate.go, server_validateresourceconfig.go;\n"+
				"     internal/fwschemadata and internal/privatestate) for anything these answers do by hand:\n"+
				"     defaults, unknown marking, plan modifiers, semantic equality, write-only nulling,\n"+
				"     validation order and wording, private state's type, its zero value and its encoding.\n"+
				"  2. Adapt direct_plan.go, server.go, validate_direct.go, validate_pool.go, codec.go and\n"+
				"     private.go to what changed.\n"+
				"  3. Run this package's tests and, with TF_ACC=1, the provider's acceptance tests, which run\n"+
				"     every direct answer through the framework too (verify mode): TestAccDirectAnswers,\n"+
				"     TestAccQuickstart*, TestAccPromise*, TestAccRequest*, TestAccDestination*, TestAccObserve*.\n"+
				"  4. Then set %q to %q in reviewed (version_test.go).",
				module, got, want, module, got)
		}
	}
}
