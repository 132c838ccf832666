package provider

import (
	"regexp"
	"strings"
	"testing"
)

// TestAccRefreshStoreDown: the one MinIO server of three destinations and a promise stops; the
// next plan fails with one error for that store, naming every destination on it, and not one
// identical error per object.
func TestAccRefreshStoreDown(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	second := secondMinIO(t, "outage")
	config := requiredKratix +
		kratixProviderBlock{Secrets: []hclAttr{bucketSecret("s", second.AccessKey, second.SecretKey)}}.String() +
		kratixStateStore{Label: "s", Name: q("s"), SecretRef: q("s"), Bucket: bucketAt(second.Endpoint, "outage")}.String() +
		kratixDestination{Label: "d", ForEach: `toset(["w1", "w2", "w3"])`, Name: "each.key", Path: "each.key", StateStore: "kratix_state_store.s"}.String() +
		kratixPromise{Label: "p", Name: q("app"), Dependencies: q(namespaceDoc("app")), Destinations: "values(kratix_destination.d)"}.String()
	c := newCLI(t, map[string]string{"main.tf": config})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	second.Down()
	out, err := c.run("plan")
	if err == nil {
		t.Fatalf("the plan with the store down succeeded:\n%s", out)
	}
	errors := regexp.MustCompile(`(?m)^Error: `).FindAllString(out, -1)
	flat := strings.Join(strings.Fields(out), " ")
	if len(errors) != 1 {
		t.Errorf("%d errors, want one for the store:\n%s", len(errors), out)
	}
	for _, want := range []string{second.Endpoint, "endpoint unreachable", `Destination "w1"`, `Destination "w2"`, `Destination "w3"`} {
		if !strings.Contains(flat, want) {
			t.Errorf("the plan does not name %q:\n%s", want, out)
		}
	}
}
