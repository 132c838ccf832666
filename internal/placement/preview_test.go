package placement_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// previewPool: a and b in dev (zones 1 and 2), c in prod, d in dev but cordoned.
func previewPool() []placement.Member {
	a := member("a", locA(), storePath, "kratix/a", layout.ModeNestedByMetadata, map[string]string{"env": "dev", "zone": "1"})
	b := member("b", locA(), storePath, "kratix/b", layout.ModeNestedByMetadata, map[string]string{"env": "dev", "zone": "2"})
	c := member("c", locA(), storePath, "kratix/c", layout.ModeNestedByMetadata, map[string]string{"env": "prod", "zone": "1"})
	d := member("d", locA(), storePath, "kratix/d", layout.ModeNestedByMetadata, map[string]string{"env": "dev", "zone": "1"})
	d.Taints = []scheduling.Taint{{Key: "maintenance", Effect: scheduling.EffectNoSchedule}}
	return []placement.Member{a, b, c, d}
}

func TestPreviewPlacement(t *testing.T) {
	tolerate := []scheduling.Toleration{{Key: "maintenance", Operator: scheduling.TolerationOpExists}}
	for _, tc := range []struct {
		name     string
		in       placement.PreviewInput
		selected []string
		reasons  map[string]string // destination => a part of its reason
		ignored  []string          // keys of request selectors overridden
	}{
		{name: "a promise: every match, but the cordoned one",
			in:       placement.PreviewInput{Selectors: []scheduling.Selector{envSelector("dev")}},
			selected: []string{"a", "b"},
			reasons:  map[string]string{"c": "env", "d": "tainted maintenance:NoSchedule"}},
		{name: "a promise tolerating the cordon",
			in:       placement.PreviewInput{Selectors: []scheduling.Selector{envSelector("dev")}, Tolerations: tolerate},
			selected: []string{"a", "b", "d"}},
		{name: "no selector: the whole pool but the cordoned one",
			in:       placement.PreviewInput{},
			selected: []string{"a", "b", "c"}},
		{name: "entries merged: env dev and zone 1",
			in:       placement.PreviewInput{Selectors: []scheduling.Selector{envSelector("dev"), {MatchLabels: map[string]string{"zone": "1"}}}},
			selected: []string{"a"}},
		{name: "match any: env prod or zone 2",
			in:       placement.PreviewInput{MatchAny: true, Selectors: []scheduling.Selector{envSelector("prod"), {MatchLabels: map[string]string{"zone": "2"}}}},
			selected: []string{"b", "c"}},
		{name: "request selectors narrow the promise's",
			in:       placement.PreviewInput{Selectors: []scheduling.Selector{envSelector("dev")}, Second: []scheduling.Selector{{MatchLabels: map[string]string{"zone": "2"}}}},
			selected: []string{"b"}},
		{name: "the promise's selectors win over the request's",
			in:       placement.PreviewInput{Selectors: []scheduling.Selector{envSelector("dev")}, Second: []scheduling.Selector{envSelector("prod")}},
			selected: []string{"a", "b"}, ignored: []string{"env"}},
		{name: "one with two replicas spread over zones: the two dev zones",
			in:       placement.PreviewInput{Selectors: []scheduling.Selector{envSelector("dev")}, One: true, Key: "k", Replicas: 2, SpreadKey: "zone", By: `key "k"`},
			selected: []string{"a", "b"},
			reasons:  map[string]string{"d": "tainted maintenance:NoSchedule"}},
		{name: "one with three replicas tolerating the cordon",
			in:       placement.PreviewInput{Selectors: []scheduling.Selector{envSelector("dev")}, One: true, Key: "k", Replicas: 3, Tolerations: tolerate, By: `key "k"`},
			selected: []string{"a", "b", "d"}},
		{name: "one, nothing matches",
			in:       placement.PreviewInput{Selectors: []scheduling.Selector{envSelector("staging")}, One: true, Key: "k", By: `key "k"`},
			selected: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Pool = placement.Destinations(previewPool())
			p, err := placement.PreviewPlacement(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Selected, tc.selected) {
				t.Errorf("selected %v, want %v", p.Selected, tc.selected)
			}
			if len(p.Decisions) != 4 {
				t.Fatalf("%d decisions, want one per destination (4)", len(p.Decisions))
			}
			for i, d := range p.Decisions {
				if want := []string{"a", "b", "c", "d"}[i]; d.Destination != want {
					t.Errorf("decision %d is for %s, want %s (the pool's order)", i, d.Destination, want)
				}
				if part, ok := tc.reasons[d.Destination]; ok && (d.Selected || !strings.Contains(d.Reason(), part)) {
					t.Errorf("%s: selected %v, reason %q; want not selected, the reason saying %q", d.Destination, d.Selected, d.Reason(), part)
				}
			}
			var ignored []string
			for _, c := range p.Ignored {
				ignored = append(ignored, c.Key)
			}
			if !reflect.DeepEqual(ignored, tc.ignored) {
				t.Errorf("ignored %v, want %v", ignored, tc.ignored)
			}
		})
	}
	_, err := placement.PreviewPlacement(placement.PreviewInput{MatchAny: true, Selectors: []scheduling.Selector{envSelector("dev")}, Second: []scheduling.Selector{envSelector("dev")}})
	if !errors.Is(err, placement.ErrAnyWithSecond) {
		t.Errorf("match any with request selectors: %v, want ErrAnyWithSecond", err)
	}
}

// The preview of mode "one" is the request's own choice: for many keys, the destinations a new
// request goes to (PlanRequest) are the ones the preview selects, and each match left out says
// which was chosen and for whom.
func TestPreviewIsTheRequestsChoice(t *testing.T) {
	pool := previewPool()
	out := pgRequest(map[string]string{"db.yaml": dbYAML})
	for i := range 40 {
		key := fmt.Sprintf("ns/postgres/r%d", i)
		for _, replicas := range []int{1, 2} {
			plan := planRequest(t, placement.Request{Selector: envSelector("dev"), Output: out, Pool: pool, Key: key, Replicas: replicas})
			p, err := placement.PreviewPlacement(placement.PreviewInput{Pool: placement.Destinations(pool), Selectors: []scheduling.Selector{envSelector("dev")},
				One: true, Key: key, Replicas: replicas, By: "request " + key})
			if err != nil {
				t.Fatal(err)
			}
			want := append([]string(nil), plan.Scheduled...)
			slices.Sort(want)
			if !reflect.DeepEqual(p.Selected, want) {
				t.Fatalf("key %s, replicas %d: the preview selects %v, the request goes to %v", key, replicas, p.Selected, want)
			}
			if replicas == 1 {
				other := map[string]string{"a": "b", "b": "a"}[want[0]]
				for _, d := range p.Decisions {
					if d.Destination == other && !strings.Contains(d.Reason(), fmt.Sprintf(`mode = "one" chose %s for request %s`, want[0], key)) {
						t.Errorf("key %s: %s's reason is %q", key, other, d.Reason())
					}
				}
			}
		}
	}
}
