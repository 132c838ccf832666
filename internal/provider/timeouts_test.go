package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// timeoutsConfig is a store, a destination, a promise and a request on one bucket; blocks holds
// what goes inside each resource (a `timeouts` block, or nothing), by resource name.
func timeoutsConfig(ts *testStore, blocks map[string]string) string {
	return ts.provider +
		kratixStateStore{Label: "s", Body: ts.store + blocks["s"]}.String() +
		kratixDestination{Label: "d", Name: q("worker"), Path: q("worker"), StateStore: "kratix_state_store.s", Body: blocks["d"]}.String() +
		kratixPromise{Label: "p", Name: q("app"), Dependencies: q(namespaceDoc("app")), Destinations: "[kratix_destination.d]", Body: blocks["p"]}.String() +
		kratixResourceRequest{Label: "r", Promise: "kratix_promise.p", Name: q("one"), Documents: q(configMapDoc("one")), Body: blocks["r"]}.String()
}

var timeoutsResources = map[string]string{
	"s": "kratix_state_store.s", "d": "kratix_destination.d", "p": "kratix_promise.p", "r": "kratix_resource_request.r",
}

// TestAccTimeouts_blockAddedLater: resources applied without a `timeouts` block plan nothing
// afterwards; adding the block updates them in place (never a replacement) and writes nothing to
// the store; removing it again is the same.
func TestAccTimeouts_blockAddedLater(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	none := map[string]string{}
	all := "  timeouts {\n    create = \"20m\"\n    read   = \"3m\"\n    update = \"21m\"\n    delete = \"22m\"\n  }"
	set := map[string]string{
		"s": "  timeouts {\n    create = \"20m\"\n    update = \"21m\"\n  }",
		"d": all, "p": all, "r": all,
	}
	updatesOnly := func() []plancheck.PlanCheck {
		var checks []plancheck.PlanCheck
		for _, addr := range timeoutsResources {
			checks = append(checks, plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate))
		}
		return checks
	}
	var before acctest.Mark
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				// Applied as before the block existed; the framework's post-apply plan must be empty.
				Config: timeoutsConfig(ts, none),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("timeouts"), knownvalue.Null()),
				},
			},
			{
				Config:   timeoutsConfig(ts, none),
				PlanOnly: true,
			},
			{
				PreConfig: func() { before = ts.mark(t) },
				Config:    timeoutsConfig(ts, set),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             updatesOnly(),
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kratix_state_store.s", tfjsonpath.New("timeouts"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"create": knownvalue.StringExact("20m"), "read": knownvalue.Null(), "update": knownvalue.StringExact("21m"),
					})),
					statecheck.ExpectKnownValue("kratix_resource_request.r", tfjsonpath.New("timeouts").AtMapKey("delete"), knownvalue.StringExact("22m")),
					acctest.NoWritesSince(ts.journal, &before),
				},
			},
			{
				PreConfig: func() { before = ts.mark(t) },
				Config:    timeoutsConfig(ts, none),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             updatesOnly(),
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{acctest.NoWritesSince(ts.journal, &before)},
			},
		},
	})
}

// TestAccTimeouts_tinyLimit: a create limited to 1ns fails at once, with an error that names the
// operation, the limit and the attribute to raise, and writes nothing.
func TestAccTimeouts_tinyLimit(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	config := storeConfig(ts) + kratixDestination{
		Label: "d", Name: q("worker"), Path: q("worker"), StateStore: "kratix_state_store.s",
		Body: "  timeouts {\n    create = \"1ns\"\n  }",
	}.String()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config:      config,
			ExpectError: wordsRegexp(`Operation Timed Out`, `kratix_destination "worker": the create did not finish within its create timeout of 1ns (timeouts.create; default 10m)`),
		}},
	})
	if files := ts.list(t); len(files) != 0 {
		t.Errorf("a create that ran out of time wrote %v", files)
	}
}

// TestAccTimeouts_unansweringStore: a store that accepts connections and never answers holds the
// first plan of a new store, whose read check is bounded by the create's limit, only as long as
// that limit, not the default 10 minutes, for buckets and Git over HTTP and
// SSH (where go-git runs the SSH handshake without the operation's context), and the store's
// error says that it timed out rather than that the endpoint is unreachable.
func TestAccTimeouts_unansweringStore(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	addr := testinfra.SilentServer(t)
	// The silent server shows no host key; a known_hosts line for its address is what an SSH
	// store needs to try at all.
	_, hostKey, _ := strings.Cut(gitServer.KnownHosts, " ")
	knownHosts := knownhosts.Normalize(addr) + " " + hostKey
	tests := map[string]struct {
		secret       hclAttr
		bucket, repo any
	}{
		"bucket": {secret: hclAttr{"s", hclObj{{"access_key_id", q("silent")}, {"secret_access_key", q("silent-secret")}}},
			bucket: bucketAt(addr, "silent")},
		"git-http": {secret: hclAttr{"s", hclObj{{"username", q("u")}, {"password", q("silent-password")}}},
			repo: fmt.Sprintf("{ url = %s }", q("http://"+addr+"/silent.git"))},
		"git-ssh": {secret: hclAttr{"s", hclObj{{"ssh_private_key", q(gitServer.SSHPrivateKey)}, {"known_hosts", q(knownHosts)}}},
			repo: fmt.Sprintf("{ url = %s }", q("ssh://git@"+addr+"/silent.git"))},
	}
	// A create that ignored its limit would hang the test for good: past this, the test binary
	// stops with a message that says so.
	const bound = 2 * time.Minute
	onStoresOf(t, storeKinds, func(t *testing.T, kind string) {
		tt := tests[kind]
		watchdog := time.AfterFunc(bound, func() {
			panic(fmt.Sprintf("TestAccTimeouts_unansweringStore/%s: the create has run for %s; its limit was 3s", kind, bound))
		})
		defer watchdog.Stop()
		config := kratixProviderBlock{Secrets: []hclAttr{tt.secret}}.String() + kratixStateStore{
			Label: "s", Name: q("silent"), SecretRef: q("s"), Bucket: tt.bucket, Git: tt.repo,
			Body: "  timeouts {\n    create = \"3s\"\n  }",
		}.String()
		start := time.Now()
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{{
				Config: config,
				ExpectError: wordsRegexp(`timed out.`, `Cause:`,
					`The operation ran out of its time limit: raise it in the resource's timeouts block`,
					`Operation Timed Out`, `kratix_state_store "silent": the create did not finish within its create timeout of 3s`),
			}},
		})
		if took := time.Since(start); took > 90*time.Second {
			t.Errorf("the create took %s; its limit was 3s", took)
		}
	})
}

// wordsRegexp matches each phrase with any line breaks Terraform puts between its words.
func wordsRegexp(phrases ...string) *regexp.Regexp {
	parts := make([]string, len(phrases))
	for i, p := range phrases {
		words := strings.Fields(p)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		parts[i] = strings.Join(words, `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(parts, `.*`))
}
