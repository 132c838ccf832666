package placement_test

import (
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// The acknowledgements below were computed by hand, outside Go, from the form documented at
// placement.Acknowledgement, for example:
//
//	printf 'kratix_promise\tjenkins\na\tremoved\nb\tremoved\n' | sha256sum | cut -c1-16
const (
	ackAB      = "ack-776f5b212c239562" // kratix_promise jenkins: a, b removed
	ackABC     = "ack-d3b6d07f1bd0bc2d" // a, b, c removed
	ackA       = "ack-d227c3a30c79d8d1" // a removed
	ackAC      = "ack-4ee5617f9675d830" // a, c removed
	ackABOther = "ack-b2f4d8e364b23320" // promise "other": a, b removed
	ackABReq   = "ack-6d4aed1ea587eda1" // kratix_resource_request jenkins: a, b removed
	ackAX      = "ack-0e7cd87e567afd76" // a loses kratix/a/x.yaml
	ackAXY     = "ack-3a8fce67fcea7f1c" // a loses kratix/a/x.yaml and kratix/a/y.yaml
	ackMove    = "ack-3b1e8a47a83eb162" // request postgres/default/db moves from dev to prod
)

func removed(dests ...string) []placement.Loss {
	var out []placement.Loss
	for _, d := range dests {
		out = append(out, placement.Loss{Destination: d, Kind: placement.LossRemoved})
	}
	return out
}

func noLimit() placement.Guard { return placement.Guard{MaxRemoved: -1} }

func TestGuardMaxRemovedBoundary(t *testing.T) {
	g := placement.Guard{MaxRemoved: 2}
	if v := g.Check(placement.GuardPromise, "jenkins", removed("a", "b")); v.Refused() || len(v.Rules) != 0 || v.Ack != "" {
		t.Errorf("2 destinations with max 2: %+v, want no rule", v)
	}
	v := g.Check(placement.GuardPromise, "jenkins", removed("a", "b", "c"))
	if !v.Refused() || v.Ack != ackABC {
		t.Fatalf("3 destinations with max 2: refused %v, ack %q, want refused with %s", v.Refused(), v.Ack, ackABC)
	}
	equal(t, "rules", v.Rules, []string{"3 destinations lose files, more than max_destinations_removed = 2"})
	g.MaxRemoved = 0
	if v := g.Check(placement.GuardPromise, "jenkins", removed("a")); !v.Refused() || v.Ack != ackA {
		t.Errorf("1 destination with max 0: %+v, want refused with %s", v, ackA)
	}
	if v := g.Check(placement.GuardPromise, "jenkins", nil); v.Refused() || v.Ack != "" {
		t.Errorf("no loss with max 0: %+v, want nothing", v)
	}
	if v := noLimit().Check(placement.GuardPromise, "jenkins", removed("a", "b", "c", "d")); v.Refused() {
		t.Errorf("no limit: %+v, want no rule", v)
	}
}

func TestGuardAcknowledgementOnlyForItsSet(t *testing.T) {
	g := placement.Guard{MaxRemoved: 1, Acknowledge: ackAB}
	v := g.Check(placement.GuardPromise, "jenkins", removed("a", "b"))
	if v.Refused() || !v.Acknowledged || v.Ack != ackAB {
		t.Errorf("acknowledged set: %+v, want acknowledged", v)
	}
	for _, c := range []struct {
		what, kind, name string
		losses           []placement.Loss
		ack              string
	}{
		{"one destination more", placement.GuardPromise, "jenkins", removed("a", "b", "c"), ackABC},
		{"one destination other", placement.GuardPromise, "jenkins", removed("a", "c"), ackAC},
		{"another promise", placement.GuardPromise, "other", removed("a", "b"), ackABOther},
		{"a request", placement.GuardRequest, "jenkins", removed("a", "b"), ackABReq},
	} {
		v := g.Check(c.kind, c.name, c.losses)
		if !v.Refused() || v.Acknowledged || v.Ack != c.ack {
			t.Errorf("%s: refused %v, acknowledged %v, ack %q; want refused with %s", c.what, v.Refused(), v.Acknowledged, v.Ack, c.ack)
		}
	}
	// One destination fewer: under the limit, nothing to acknowledge.
	g.MaxRemoved = 0
	if v := g.Check(placement.GuardPromise, "jenkins", removed("a")); !v.Refused() || v.Ack != ackA {
		t.Errorf("one destination fewer: %+v, want refused with %s", v, ackA)
	}
	// What a destination loses is part of the set.
	files := func(paths ...string) []placement.Loss {
		return []placement.Loss{{Destination: "a", Kind: placement.LossFiles, Paths: paths}}
	}
	g.Acknowledge = ackAX
	if v := g.Check(placement.GuardPromise, "jenkins", files("kratix/a/x.yaml")); v.Refused() {
		t.Errorf("acknowledged file: %+v", v)
	}
	if v := g.Check(placement.GuardPromise, "jenkins", files("kratix/a/x.yaml", "kratix/a/y.yaml")); !v.Refused() || v.Ack != ackAXY {
		t.Errorf("one more file: %+v, want refused with %s", v, ackAXY)
	}
}

func TestGuardStableUnderOrder(t *testing.T) {
	g := placement.Guard{MaxRemoved: 0}
	for _, order := range [][]string{{"a", "b", "c"}, {"c", "b", "a"}, {"b", "c", "a"}} {
		if v := g.Check(placement.GuardPromise, "jenkins", removed(order...)); v.Ack != ackABC {
			t.Errorf("order %v: %q, want %s", order, v.Ack, ackABC)
		}
	}
	// Losses from maps: the same whatever the iteration order (run several times).
	prior := map[string]placement.Prior{}
	pool := []placement.Member{}
	for _, d := range []string{"e", "d", "c", "b", "a"} {
		prior[d] = placement.Prior{Record: placement.Record{Location: "s3://m/b", Root: "k/" + d, Files: map[string]string{"k/" + d + "/f": "0"}}}
		pool = append(pool, member(d, locA(), storePath, "k/"+d, layout.ModeNestedByMetadata, nil))
	}
	for i := 0; i < 20; i++ {
		got := placement.Losses(prior, map[string]placement.Record{}, pool)
		var names []string
		for _, l := range got {
			names = append(names, l.Destination)
		}
		equal(t, "destinations", names, []string{"a", "b", "c", "d", "e"})
	}
}

func TestGuardProtectSingleDestination(t *testing.T) {
	prod := scheduling.Selector{MatchLabels: map[string]string{"tier": "prod"}}
	g := placement.Guard{MaxRemoved: -1, Protect: &prod}
	losses := []placement.Loss{{Destination: "a", Kind: placement.LossFiles, Paths: []string{"kratix/a/x.yaml"}, Labels: map[string]string{"tier": "prod"}}}
	v := g.Check(placement.GuardPromise, "jenkins", losses)
	if !v.Refused() || v.Ack != ackAX {
		t.Fatalf("protected: %+v, want refused with %s", v, ackAX)
	}
	equal(t, "rules", v.Rules, []string{"protected destinations (tier=prod) lose files: a"})
	losses[0].Labels = map[string]string{"tier": "dev"}
	if v := g.Check(placement.GuardPromise, "jenkins", losses); v.Refused() {
		t.Errorf("not protected: %+v", v)
	}
	// Both rules at once, one acknowledgement.
	g.MaxRemoved = 0
	losses[0].Labels = map[string]string{"tier": "prod"}
	v = g.Check(placement.GuardPromise, "jenkins", losses)
	equal(t, "rules", v.Rules, []string{"1 destinations lose files, more than max_destinations_removed = 0", "protected destinations (tier=prod) lose files: a"})
	if v.Ack != ackAX {
		t.Errorf("ack %q, want %s", v.Ack, ackAX)
	}
}

func TestGuardRequestMove(t *testing.T) {
	move := []placement.Loss{{Destination: "dev", Kind: placement.LossMoved, From: "s3://minio:9000/store-a kratix/dev", To: "destination prod"}}
	v := noLimit().Check(placement.GuardRequest, "default/postgres/db", move)
	if !v.Refused() || v.Ack != ackMove {
		t.Fatalf("request moved: %+v, want refused with %s", v, ackMove)
	}
	equal(t, "rules", v.Rules, []string{`the request moves off destination "dev"`})
	// A promise's destination that moves is only counted.
	if v := noLimit().Check(placement.GuardPromise, "default/postgres/db", move); v.Refused() {
		t.Errorf("promise moved without limit: %+v", v)
	}
	g := noLimit()
	g.Acknowledge = ackMove
	if v := g.Check(placement.GuardRequest, "default/postgres/db", move); v.Refused() || !v.Acknowledged {
		t.Errorf("acknowledged move: %+v", v)
	}
}

func TestLossesKinds(t *testing.T) {
	rec := func(loc, root string, files map[string]string) placement.Record {
		return placement.Record{Store: "s", Location: loc, Root: root, Files: files}
	}
	a, b := locA().String(), locB().String()
	devM := dev(layout.ModeNestedByMetadata)
	pool := []placement.Member{
		devM,
		member("prod", locA(), storePath, "kratix/prod", layout.ModeNestedByMetadata, map[string]string{"env": "prod"}),
		member("moved", locB(), storePath, "kratix/moved", layout.ModeNestedByMetadata, map[string]string{"env": "m"}),
		member("agg", locA(), storePath, "kratix/agg", layout.ModeAggregatedYAML, nil),
		member("kept", locA(), storePath, "kratix/kept", layout.ModeNestedByMetadata, nil),
		member("imported", locB(), storePath, "kratix/imported", layout.ModeNestedByMetadata, nil),
	}
	oldMoved := member("moved", locA(), storePath, "kratix/moved", layout.ModeNestedByMetadata, map[string]string{"env": "old"})
	gone := member("gone", locA(), storePath, "kratix/gone", layout.ModeNestedByMetadata, nil)
	prior := map[string]placement.Prior{
		"dev":   {Record: rec(a, devRoot, map[string]string{"kratix/dev/x": "1", "kratix/dev/y": "2", "kratix/dev/z": "3"}), Member: &devM},
		"prod":  {Record: rec(a, "kratix/prod", map[string]string{"kratix/prod/x": "1"})},
		"moved": {Record: rec(a, "kratix/moved", map[string]string{"kratix/moved/x": "1"}), Member: &oldMoved},
		"agg": {Record: rec(a, "kratix/agg", map[string]string{
			"kratix/agg/aggregated.yaml": "part:aa", "kratix/.kratix-aggregates/agg/aggregated.yaml/p.part": "4", "kratix/agg/extra": "5",
		})},
		"kept":     {Record: rec(a, "kratix/kept", map[string]string{"kratix/kept/x": "1"})},
		"gone":     {Record: rec(a, "kratix/gone", map[string]string{"kratix/gone/x": "1"}), Member: &gone},
		"imported": {Record: rec(a, "kratix/imported", map[string]string{"kratix/imported/x": "1"})},
		"empty":    {Record: rec(a, "kratix/empty", nil)},
	}
	next := map[string]placement.Record{
		"dev":   rec(a, devRoot, map[string]string{"kratix/dev/y": "2b"}),
		"moved": rec(b, "kratix/moved", map[string]string{"kratix/moved/x": "1"}),
		"agg": rec(a, "kratix/agg", map[string]string{
			"kratix/agg/aggregated.yaml": "stale", "kratix/.kratix-aggregates/agg/aggregated.yaml/p.part": "4b",
		}),
		"kept":     {Location: a, Root: "kratix/kept", Misscheduled: true, Files: map[string]string{"kratix/kept/x": "1"}},
		"imported": rec(b, "kratix/imported", map[string]string{"kratix/imported/x": "1"}),
	}
	got := placement.Losses(prior, next, pool)
	want := []placement.Loss{
		{Destination: "agg", Kind: placement.LossFiles, Paths: []string{"kratix/agg/extra"}, Files: 1},
		{Destination: "dev", Kind: placement.LossFiles, Paths: []string{"kratix/dev/x", "kratix/dev/z"}, Files: 2, Labels: map[string]string{"env": "dev"}, PriorLabels: map[string]string{"env": "dev"}},
		{Destination: "moved", Kind: placement.LossMoved, From: "s3://minio:9000/store-a kratix/moved", To: "s3://minio:9000/store-b kratix/moved", Files: 1, Labels: map[string]string{"env": "m"}, PriorLabels: map[string]string{"env": "old"}},
		{Destination: "prod", Kind: placement.LossRemoved, Files: 1, Labels: map[string]string{"env": "prod"}},
	}
	equal(t, "losses", got, want)
	// The aggregate file itself, shared and rebuilt, is never a loss, even when it leaves the record.
	delete(next["agg"].Files, "kratix/agg/aggregated.yaml")
	got = placement.Losses(map[string]placement.Prior{"agg": prior["agg"]}, map[string]placement.Record{"agg": next["agg"]}, pool)
	equal(t, "aggregate", got, []placement.Loss{{Destination: "agg", Kind: placement.LossFiles, Paths: []string{"kratix/agg/extra"}, Files: 1}})
	// Removed whole (a destroy): the part and the loose file are lost, not the shared file.
	got = placement.Losses(map[string]placement.Prior{"agg": prior["agg"]}, nil, pool)
	equal(t, "aggregate removed", got, []placement.Loss{{Destination: "agg", Kind: placement.LossRemoved, Files: 2}})
}

func TestLossWhat(t *testing.T) {
	l := placement.Loss{Kind: placement.LossFiles, Paths: []string{"p1", "p2", "p3", "p4", "p5"}}
	if got, want := l.What(), "5 file(s) deleted: p1, p2, p3 and 2 more"; got != want {
		t.Errorf("What: %q, want %q", got, want)
	}
	l = placement.Loss{Kind: placement.LossMoved, From: "s3://m/b k/a"}
	if got := l.What(); got != "moves from s3://m/b k/a to nowhere" {
		t.Errorf("What: %q", got)
	}
}

// TestLossesOfPlans runs the guard over real plans: a selector change that unschedules three
// destinations with on_unschedule = "delete", and a request whose destination leaves the pool.
func TestLossesOfPlans(t *testing.T) {
	var pool []placement.Member
	for _, d := range []string{"w1", "w2", "w3", "w4"} {
		env := "prod"
		if d == "w1" {
			env = "dev"
		}
		pool = append(pool, member(d, locA(), storePath, "kratix/"+d, layout.ModeNestedByMetadata, map[string]string{"env": env}))
	}
	first := planPromise(t, placement.Promise{Name: "jenkins", Dependencies: deps(depsYAML), Pool: pool})
	prior := map[string]placement.Prior{}
	for i, m := range pool {
		prior[m.Name] = placement.Prior{Record: first.Records[m.Name], Member: &pool[i]}
	}
	next := planPromise(t, placement.Promise{Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML), Pool: pool, Prior: prior, DeleteUnscheduled: true})
	losses := placement.Losses(prior, next.Records, pool)
	var names []string
	for _, l := range losses {
		names = append(names, l.Destination+":"+string(l.Kind))
	}
	equal(t, "losses", names, []string{"w2:removed", "w3:removed", "w4:removed"})
	// printf 'kratix_promise\tjenkins\nw2\tremoved\nw3\tremoved\nw4\tremoved\n' | sha256sum
	v := placement.Guard{MaxRemoved: 2}.Check(placement.GuardPromise, "jenkins", losses)
	if !v.Refused() || v.Ack != "ack-ead655b91f5c0e87" {
		t.Errorf("verdict %+v, want refused with ack-ead655b91f5c0e87", v)
	}
	if v := (placement.Guard{MaxRemoved: 3}).Check(placement.GuardPromise, "jenkins", losses); v.Refused() {
		t.Errorf("max 3: %+v", v)
	}

	// A request on w1; w1 leaves the pool: the request moves to another destination.
	out := layout.Request{Promise: "postgres", Namespace: "default", Name: "db", Pipeline: "instance-configure", Files: map[string][]byte{"db.yaml": []byte("a: 1\n")}}
	rp, _, err := placement.PlanRequest(placement.Request{Key: requestKey, Output: out, Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	on := rp.Chosen.Name
	var rest []placement.Member
	for _, m := range pool {
		if m.Name != on {
			rest = append(rest, m)
		}
	}
	before := placement.Prior{Record: rp.Records[on], Member: rp.Chosen}
	moved, _, err := placement.PlanRequest(placement.Request{Key: requestKey, Output: out, Pool: rest, PriorDestination: on, Prior: &before})
	if err != nil {
		t.Fatal(err)
	}
	got := placement.RequestLosses(on, &before, moved, rest)
	want := []placement.Loss{{Destination: on, Kind: placement.LossMoved, From: "s3://minio:9000/store-a kratix/" + on, To: "destination " + moved.Chosen.Name, Labels: rp.Chosen.Labels, PriorLabels: rp.Chosen.Labels}}
	equal(t, "request losses", got, want)
	// Staying put and changing nothing loses nothing.
	same, _, err := placement.PlanRequest(placement.Request{Key: requestKey, Output: out, Pool: pool, PriorDestination: on, Prior: &before})
	if err != nil {
		t.Fatal(err)
	}
	if got := placement.RequestLosses(on, &before, same, pool); len(got) != 0 {
		t.Errorf("request staying: %+v", got)
	}
}

// A request whose destination's folder changes moves off it, even when its old files cannot be
// reached (no member recorded) and stay.
func TestRequestLossesFolderChange(t *testing.T) {
	a, b := locA().String(), locB().String()
	before := placement.Prior{Record: placement.Record{Location: a, Root: devRoot, Files: map[string]string{"kratix/dev/x": "1"}}}
	p := placement.RequestPlan{Plan: placement.Plan{Records: map[string]placement.Record{
		"dev": {Location: b, Root: devRoot, Files: map[string]string{"kratix/dev/x": "1"}},
	}}}
	got := placement.RequestLosses("dev", &before, p, []placement.Member{dev(layout.ModeNestedByMetadata)})
	equal(t, "losses", got, []placement.Loss{{
		Destination: "dev", Kind: placement.LossMoved, From: "s3://minio:9000/store-a kratix/dev", To: "s3://minio:9000/store-b kratix/dev",
		Labels: map[string]string{"env": "dev"},
	}})
	if got := placement.RequestLosses("", nil, p, nil); got != nil {
		t.Errorf("no prior: %+v", got)
	}
}

// TestGuardJudgesLabelsBeforeAndAfter: protection is judged against a destination's labels as
// the resource last saw them (its recorded pool member) and as the pool has them now. A relabel
// that unschedules a protected destination, alone or with a move to another store, is refused
// like the selector change that makes the same deletion, with the same acknowledgement; a
// destination relabelled into protection is protected too; one never protected is not.
func TestGuardJudgesLabelsBeforeAndAfter(t *testing.T) {
	env := func(v string) map[string]string { return map[string]string{"env": v} }
	devM := member("dev", locA(), storePath, "kratix/dev", layout.ModeNestedByMetadata, env("dev"))
	prodM := member("prod", locA(), storePath, "kratix/prod", layout.ModeNestedByMetadata, env("prod"))
	both := scheduling.Selector{MatchExpressions: []scheduling.Requirement{{Key: "env", Operator: "In", Values: []string{"dev", "prod"}}}}
	first := planPromise(t, placement.Promise{Name: "jenkins", Selector: both, Dependencies: deps(depsYAML), Pool: []placement.Member{devM, prodM}})
	seen := map[string]placement.Prior{
		"dev":  {Record: first.Records["dev"], Member: &devM},
		"prod": {Record: first.Records["prod"], Member: &prodM},
	}
	imported := map[string]placement.Prior{"dev": {Record: first.Records["dev"]}, "prod": {Record: first.Records["prod"]}}
	relabel := func(m placement.Member, v string) placement.Member {
		m.Labels = env(v)
		return m
	}
	moveB := func(m placement.Member) placement.Member {
		m.Location = locB()
		return m
	}
	protectProd := scheduling.Selector{MatchLabels: env("prod")}
	// printf 'kratix_promise\tjenkins\nprod\tremoved\n' | sha256sum | cut -c1-16, and so on.
	const (
		ackProdRemoved = "ack-5392e71e6d3b0027"
		ackProdMoved   = "ack-3b68cbc7649b0280" // from store-a kratix/prod to store-b kratix/prod
		ackDevRemoved  = "ack-739477eab5e05a7b"
	)
	for _, c := range []struct {
		name     string
		selector scheduling.Selector
		pool     []placement.Member
		prior    map[string]placement.Prior
		rules    []string // nil: passes the guard
		ack      string
	}{
		{
			name: "selector narrowed", selector: envSelector("dev"), pool: []placement.Member{devM, prodM}, prior: seen,
			rules: []string{"protected destinations (env=prod) lose files: prod"}, ack: ackProdRemoved,
		},
		{
			name: "protected destination relabelled out of the selector", selector: both,
			pool: []placement.Member{devM, relabel(prodM, "retired")}, prior: seen,
			rules: []string{"protected destinations (env=prod) lose files: prod (labelled env=prod before this change)"}, ack: ackProdRemoved,
		},
		{
			name: "protected destination moved to another store", selector: both,
			pool: []placement.Member{devM, moveB(prodM)}, prior: seen,
			rules: []string{"protected destinations (env=prod) lose files: prod"}, ack: ackProdMoved,
		},
		{
			name: "protected destination relabelled and moved", selector: both,
			pool: []placement.Member{devM, moveB(relabel(prodM, "retired"))}, prior: seen,
			rules: []string{"protected destinations (env=prod) lose files: prod (labelled env=prod before this change)"}, ack: ackProdRemoved,
		},
		{
			// dev becomes env=prod while the promise narrows to what it was: protected by the labels after.
			name: "destination relabelled into protection", selector: envSelector("dev"),
			pool: []placement.Member{relabel(devM, "prod"), relabel(prodM, "dev")}, prior: seen,
			rules: []string{"protected destinations (env=prod) lose files: dev"}, ack: ackDevRemoved,
		},
		{
			name: "unprotected destination relabelled", selector: both,
			pool: []placement.Member{relabel(devM, "staging"), prodM}, prior: seen,
		},
		{
			// Nothing recorded of the destination before (an import): the labels after decide.
			name: "relabelled, no member recorded", selector: both,
			pool: []placement.Member{devM, relabel(prodM, "retired")}, prior: imported,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			next := planPromise(t, placement.Promise{Name: "jenkins", Selector: c.selector, Dependencies: deps(depsYAML), Pool: c.pool, Prior: c.prior, DeleteUnscheduled: true})
			losses := placement.Losses(c.prior, next.Records, c.pool)
			g := placement.Guard{MaxRemoved: -1, Protect: &protectProd}
			v := g.Check(placement.GuardPromise, "jenkins", losses)
			equal(t, "rules", v.Rules, c.rules)
			if v.Ack != c.ack || v.Refused() != (c.rules != nil) {
				t.Errorf("ack %q refused %v, want %q refused %v (losses %+v)", v.Ack, v.Refused(), c.ack, c.rules != nil, losses)
			}
			if c.ack == "" {
				return
			}
			g.Acknowledge = c.ack
			if v := g.Check(placement.GuardPromise, "jenkins", losses); v.Refused() || !v.Acknowledged {
				t.Errorf("acknowledged with %s: %+v", c.ack, v)
			}
		})
	}
}

// TestRequestGuardJudgesLabelsBeforeAndAfter: a request stays on a relabelled destination
// (misscheduled); a file it stops writing there is a loss on a destination protected by its
// labels before the relabel. Moved with a relabel, it breaks both rules.
func TestRequestGuardJudgesLabelsBeforeAndAfter(t *testing.T) {
	prodM := member("prod", locA(), storePath, "kratix/prod", layout.ModeNestedByMetadata, map[string]string{"env": "prod"})
	retired := prodM
	retired.Labels = map[string]string{"env": "retired"}
	retiredB := retired
	retiredB.Location = locB()
	out := func(files ...string) layout.Request {
		r := layout.Request{Promise: "postgres", Namespace: "default", Name: "db", Pipeline: "instance-configure", Files: map[string][]byte{}}
		for _, f := range files {
			r.Files[f] = []byte("kind: " + f + "\n")
		}
		return r
	}
	sel := scheduling.Selector{MatchLabels: map[string]string{"env": "prod"}}
	first, _, err := placement.PlanRequest(placement.Request{Key: requestKey, Selector: sel, Output: out("a.yaml", "b.yaml"), Pool: []placement.Member{prodM}})
	if err != nil || first.Chosen == nil || first.Chosen.Name != "prod" {
		t.Fatalf("first plan: %+v, %v", first, err)
	}
	before := placement.Prior{Record: first.Records["prod"], Member: &prodM}
	protect := scheduling.Selector{MatchLabels: map[string]string{"env": "prod"}}
	g := placement.Guard{MaxRemoved: -1, Protect: &protect}
	// printf 'kratix_resource_request\tdefault/postgres/db\nprod\tfiles\t<path>\n' | sha256sum | cut -c1-16
	const ackB = "ack-e50be29b63afe269"
	// printf 'kratix_resource_request\tdefault/postgres/db\nprod\tmoved\ts3://minio:9000/store-a kratix/prod\ts3://minio:9000/store-b kratix/prod\n'
	const ackMovedB = "ack-c18884834570e2b1"
	for _, c := range []struct {
		name   string
		pool   placement.Member
		output layout.Request
		rules  []string
		ack    string
	}{
		{name: "relabelled, nothing lost", pool: retired, output: out("a.yaml", "b.yaml")},
		{
			name: "relabelled, a file dropped", pool: retired, output: out("a.yaml"),
			rules: []string{"protected destinations (env=prod) lose files: prod (labelled env=prod before this change)"}, ack: ackB,
		},
		{
			name: "relabelled and moved to another store", pool: retiredB, output: out("a.yaml", "b.yaml"),
			rules: []string{"protected destinations (env=prod) lose files: prod (labelled env=prod before this change)", `the request moves off destination "prod"`}, ack: ackMovedB,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			pool := []placement.Member{c.pool}
			p, _, err := placement.PlanRequest(placement.Request{Key: requestKey, Selector: sel, Output: c.output, Pool: pool, PriorDestination: "prod", Prior: &before})
			if err != nil {
				t.Fatal(err)
			}
			v := g.Check(placement.GuardRequest, requestKey, placement.RequestLosses("prod", &before, p, pool))
			equal(t, "rules", v.Rules, c.rules)
			if v.Ack != c.ack {
				t.Errorf("ack %q, want %q", v.Ack, c.ack)
			}
		})
	}
}

// TestGuardJudgesLabelsFilesWereWrittenUnder: the walk-around in two plans. A protected
// destination is relabelled out of the promise while on_unschedule is "keep": nothing is lost,
// the placement is kept misscheduled, and WrittenLabels keeps the labels its files were written
// under (env=prod). The next plan switches to "delete" with the destination's labels env=retired
// before and after: the removal is still refused, by the labels the files were written under.
// An unprotected destination relabelled the same way passes.
func TestGuardJudgesLabelsFilesWereWrittenUnder(t *testing.T) {
	env := func(v string) map[string]string { return map[string]string{"env": v} }
	devM := member("dev", locA(), storePath, "kratix/dev", layout.ModeNestedByMetadata, env("dev"))
	prodM := member("prod", locA(), storePath, "kratix/prod", layout.ModeNestedByMetadata, env("prod"))
	notRetired := scheduling.Selector{MatchExpressions: []scheduling.Requirement{{Key: "env", Operator: "NotIn", Values: []string{"retired"}}}}
	protectProd := scheduling.Selector{MatchLabels: env("prod")}
	g := placement.Guard{MaxRemoved: -1, Protect: &protectProd}
	first := planPromise(t, placement.Promise{Name: "jenkins", Selector: notRetired, Dependencies: deps(depsYAML), Pool: []placement.Member{devM, prodM}})
	firstOut := first.Settle(nil)
	written := placement.WrittenLabels(nil, firstOut, []placement.Member{devM, prodM})
	equal(t, "written after the first apply", written, map[string]map[string]string{"dev": env("dev"), "prod": env("prod")})

	for _, c := range []struct {
		name  string
		which placement.Member
		rules []string
	}{
		{name: "protected", which: prodM, rules: []string{"protected destinations (env=prod) lose files: prod (labelled env=prod when its files were written)"}},
		{name: "unprotected", which: devM},
	} {
		t.Run(c.name, func(t *testing.T) {
			retired := c.which
			retired.Labels = env("retired")
			pool := []placement.Member{retired}
			other := devM
			if c.which.Name == "dev" {
				other = prodM
			}
			pool = append(pool, other)
			prior := map[string]placement.Prior{}
			for _, m := range []placement.Member{devM, prodM} {
				prior[m.Name] = placement.Prior{Record: firstOut.Records[m.Name], Member: &m, WrittenLabels: written[m.Name]}
			}
			// Plan 1: relabel under keep. Nothing lost; the labels the files were written under stay.
			kept := planPromise(t, placement.Promise{Name: "jenkins", Selector: notRetired, Dependencies: deps(depsYAML), Pool: pool, Prior: prior})
			if v := g.Check(placement.GuardPromise, "jenkins", placement.Losses(prior, kept.Records, pool)); len(v.Rules) != 0 {
				t.Fatalf("the relabel under keep: %v, want no rule", v.Rules)
			}
			keptOut := kept.Settle(nil)
			written2 := placement.WrittenLabels(prior, keptOut, pool)
			if got := written2[c.which.Name]; got["env"] != c.which.Labels["env"] {
				t.Fatalf("after the relabel under keep, %s's files are recorded as written under %v, want %v", c.which.Name, got, c.which.Labels)
			}
			// Plan 2: on_unschedule = "delete", labels unchanged since plan 1.
			prior2 := map[string]placement.Prior{}
			for _, m := range pool {
				prior2[m.Name] = placement.Prior{Record: keptOut.Records[m.Name], Member: &m, WrittenLabels: written2[m.Name]}
			}
			next := planPromise(t, placement.Promise{Name: "jenkins", Selector: notRetired, Dependencies: deps(depsYAML), Pool: pool, Prior: prior2, DeleteUnscheduled: true})
			v := g.Check(placement.GuardPromise, "jenkins", placement.Losses(prior2, next.Records, pool))
			equal(t, "rules", v.Rules, c.rules)
		})
	}
}
