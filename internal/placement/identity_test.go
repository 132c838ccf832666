package placement_test

import (
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// A request has one spelling users see, its id <promise>/<namespace>/<name>; the rendezvous key
// keeps the order it always had (the rendezvous choice), so no request moves and no keyed hash changes.
func TestRequestIdentity(t *testing.T) {
	if got := placement.RequestID("postgres", "default", "db"); got != "postgres/default/db" {
		t.Errorf("RequestID = %q, want postgres/default/db", got)
	}
	if got := placement.RequestKey("postgres", "default", "db"); got != requestKey {
		t.Errorf("RequestKey = %q, want %q", got, requestKey)
	}
	out := pgRequest(map[string]string{"db.yaml": dbYAML})
	for name, in := range map[string]placement.Request{
		"no candidate": {Selector: envSelector("prod"), Output: out, Pool: []placement.Member{dev("")}},
		"misscheduled": {Selector: envSelector("prod"), Output: out, Pool: []placement.Member{dev("")}, PriorDestination: "dev",
			Prior: &placement.Prior{Record: placement.Record{Location: locA().String(), Root: devRoot}}},
		"left the pool": {Output: out, Pool: []placement.Member{dev("")}, PriorDestination: "gone",
			Prior: &placement.Prior{Record: placement.Record{Location: locA().String(), Root: "kratix/gone"}}},
	} {
		p := planRequest(t, in)
		if len(p.Warnings) == 0 {
			t.Errorf("%s: no warning", name)
		}
		for _, w := range p.Warnings {
			if !strings.Contains(w, "equest postgres/default/db") || strings.Contains(w, "default/postgres/db") {
				t.Errorf("%s: the warning does not name the request by its id postgres/default/db: %q", name, w)
			}
		}
	}
}
