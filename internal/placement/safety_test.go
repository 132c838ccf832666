package placement_test

import (
	"fmt"
	"math/rand/v2"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// Ownership: the provider deletes only inside the folders and files it owns. Whatever a record
// says (state can hold anything: an import, a hand edit, a bug in an older version), no Op may
// delete a canary, a path outside the destination's folder (other than the placement's own
// aggregate part), another placement's index file or part, or the shared aggregate without
// rebuilding it.
func TestNoOpDeletesWhatItDoesNotOwnWhateverTheRecordSays(t *testing.T) {
	checkSafety(t, 20240611, func(rng *rand.Rand, s *scenario) { s.recorded = adversarialRecord(rng, *s) })
}

// The same rules for the records the engine itself leaves (its own files in the layout the
// destination had, plus a stray file in an owned folder, as Refresh records it): the ordinary
// life of a resource, with moves, mode changes, renames, unscheduling and removals.
func TestNoOpDeletesWhatItDoesNotOwnFromItsOwnRecords(t *testing.T) {
	checkSafety(t, 7, func(rng *rand.Rand, s *scenario) { s.recorded = engineRecord(t, rng, *s) })
}

// advice says, for each rule, why the engine breaks it (all found with records holding paths the
// placement never wrote) and what would keep it.
var advice = map[string]string{
	"deletes a canary (any mode's canary path)": "owns() refuses only the canaries of the target's current mode " +
		"(layout.Canaries(mode(t), root)); a recorded canary path of another mode (the mode the destination has now, " +
		"or had) is deleted. Refuse the canary paths of every mode, as layout.CheckRequestFiles does for file keys.",
	"deletes a canary of the destination's current mode": "when the placement is taken from where it was (old root or " +
		"old mode), owns() checks the old target's canaries only, so a recorded path that is a canary of the target the " +
		"destination has now goes. Refusing every mode's canaries at every root of the destination fixes it.",
	"deletes another placement's aggregate part": "owns() accepts ANY path under Aggregate.Dir; like index files, " +
		"only the placement's own claim there should be deletable (another workspace's part would be lost and the " +
		"aggregate rebuilt without it).",
	"deletes another placement's index file": "owns() protects index files only directly under <root>/.kratix/; an " +
		"index file of a folder nested in the old root (the destination's path changed from \".\" to \"dev\", or the " +
		"reverse) is deleted. Refuse any unclaimed path with a \".kratix\" segment.",
	"deletes the shared aggregate without rebuilding it": "a recorded aggregate (value \"part:...\" or \"stale\") " +
		"is protected only when the layout it is removed from is aggregatedYAML with that file name; refuse recorded " +
		"entries whose value carries AggregateMark or Stale whatever the layout.",
}

func checkSafety(t *testing.T, seed uint64, record func(*rand.Rand, *scenario)) {
	t.Helper()
	const cases = 2000
	rng := rand.New(rand.NewPCG(seed, 1))
	violations := map[string][]string{}
	var ops, deletes int
	for i := 0; i < cases; i++ {
		sc := randomScenario(rng)
		if sc.held {
			record(rng, &sc)
		}
		plan, err := sc.run()
		if err != nil {
			t.Fatalf("case %d (%s): %v", i, sc, err)
		}
		for _, op := range plan.Ops {
			ops++
			if op.Member.Location != op.Location {
				violations["Op.Member is not at Op.Location"] = append(violations["Op.Member is not at Op.Location"],
					fmt.Sprintf("case %d (%s): member at %s, op at %s", i, sc, op.Member.Location, op.Location))
			}
			for _, d := range append(append([]string(nil), op.Change.Delete...), op.Change.Prune...) {
				deletes++
				for _, kind := range sc.violations(op, d) {
					_, rec := sc.recorded[d]
					violations[kind] = append(violations[kind], fmt.Sprintf("case %d (%s): deletes %q (recorded: %v)", i, sc, d, rec))
				}
			}
			for p := range op.Change.Put {
				if !sc.confined(op.Location, p) {
					violations["puts outside the folder"] = append(violations["puts outside the folder"], fmt.Sprintf("case %d (%s): puts %q", i, sc, p))
				}
			}
		}
	}
	for _, kind := range sortedKeysOf(violations) {
		ex := violations[kind]
		if len(ex) > 3 {
			ex = ex[:3]
		}
		t.Errorf("ownership (deletes only inside what the provider owns): %s: %d of %d deletes. %s\ne.g.\n  %s", kind, len(violations[kind]), deletes, advice[kind], strings.Join(ex, "\n  "))
	}
	t.Logf("%d cases, %d ops, %d deletes checked", cases, ops, deletes)
	if deletes < cases/4 {
		t.Errorf("only %d deletes in %d cases: the generator does not exercise removals", deletes, cases)
	}
}

// A recorded path that climbs out of the folder through ".." is outside it, whatever its
// prefix says (layout: a path that would leave ROOT is rejected).
func TestRecordedPathLeavingTheFolderIsNotDeleted(t *testing.T) {
	m := dev("")
	for _, escaping := range []string{
		"kratix/dev/../prod/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml",
		"kratix/dev/dependencies/jenkins/5058f/../../../../prod/x.yaml",
	} {
		p := planPromise(t, placement.Promise{Name: "jenkins", Dependencies: deps(depsYAML), Pool: []placement.Member{m},
			Prior: map[string]placement.Prior{"dev": {Member: &m, Record: placement.Record{Location: locA().String(), Root: devRoot,
				Files: map[string]string{nestedDepsFile: depsMD5, escaping: "x"}}}}})
		for _, op := range p.Ops {
			for _, d := range op.Change.Delete {
				if clean := path.Clean(d); !strings.HasPrefix(clean, devRoot+"/") {
					t.Errorf("ownership (deletes confined to the folder): a recorded %q is deleted; cleaned it is %q, "+
						"outside %s/. owns() checks the raw prefix; it should clean the path (or refuse any \"..\" segment) first.", d, clean, devRoot)
				}
			}
		}
	}
}

// A record is a map of files; a key shaped like a folder ("…/") must not turn into a Delete of
// everything under it (which would take the canaries and other placements' files with it).
func TestRecordedFolderIsNotDeletedWhole(t *testing.T) {
	m := dev("")
	p := planPromise(t, placement.Promise{Name: "jenkins", Dependencies: deps(depsYAML), Pool: []placement.Member{m},
		Prior: map[string]placement.Prior{"dev": {Member: &m, Record: placement.Record{Location: locA().String(), Root: devRoot,
			Files: map[string]string{nestedDepsFile: depsMD5, "kratix/dev/resources/": "x", "kratix/dev/dependencies/": "x"}}}}})
	for _, op := range p.Ops {
		for _, d := range op.Change.Delete {
			for _, protected := range []string{"kratix/dev/resources/kratix-canary-configmap.yaml", "kratix/dev/dependencies/kratix-canary-namespace.yaml", nestedReqDB} {
				if covers(d, protected) {
					t.Errorf("ownership: a recorded key %q becomes a Delete that removes %q. Change.Delete treats a trailing \"/\" "+
						"as a folder; owns() should refuse recorded paths ending in \"/\".", d, protected)
				}
			}
		}
	}
}

type scenarioKind int

const (
	planPromiseKind scenarioKind = iota
	removePromiseKind
	planRequestKind
	removeRequestKind
)

func (k scenarioKind) String() string {
	return [...]string{"PlanPromise", "RemovePromise", "PlanRequest", "RemoveRequest"}[k]
}

type scenario struct {
	kind       scenarioKind
	cur        placement.Member
	inPool     bool
	alt        *placement.Member // a second pool member, for requests
	prior      *placement.Member // the destination as it was (nil: unknown)
	held       bool
	recorded   map[string]string
	empty      bool
	delUnsched bool
}

func (s scenario) String() string {
	desc := func(m *placement.Member) string {
		if m == nil {
			return "nil"
		}
		return fmt.Sprintf("%s@%s:%q/%s/%q", m.Name, m.Location.Bucket, m.Target.Root, mode(m.Target.Mode), m.Target.AggregatedFilename)
	}
	return fmt.Sprintf("%s cur=%s env=%s inPool=%v prior=%s alt=%s held=%v empty=%v delete=%v",
		s.kind, desc(&s.cur), s.cur.Labels["env"], s.inPool, desc(s.prior), desc(s.alt), s.held, s.empty, s.delUnsched)
}

func mode(m layout.Mode) layout.Mode {
	if m == "" {
		return layout.ModeNestedByMetadata
	}
	return m
}

var spots = []struct{ sp, root string }{
	{"kratix", "kratix/dev"},
	{"kratix", "kratix/clusters/dev"},
	{"kratix", "kratix"},
	{"", ""},
	{"", "dev"},
}

func randomMember(rng *rand.Rand, name string) placement.Member {
	spot := spots[rng.IntN(len(spots))]
	loc := locA()
	if rng.IntN(2) == 0 {
		loc = locB()
	}
	env := "dev"
	if rng.IntN(4) == 0 {
		env = "prod"
	}
	m := member(name, loc, spot.sp, spot.root, layout.Modes[rng.IntN(len(layout.Modes))], map[string]string{"env": env})
	if rng.IntN(3) == 0 {
		m.Target.AggregatedFilename = "all.yaml"
	}
	return m
}

func randomScenario(rng *rand.Rand) scenario {
	s := scenario{kind: scenarioKind(rng.IntN(4)), cur: randomMember(rng, "dev"), inPool: rng.IntN(7) != 0,
		held: rng.IntN(5) != 0, empty: rng.IntN(4) == 0, delUnsched: rng.IntN(2) == 0}
	switch rng.IntN(6) {
	case 0: // unknown, as after an import
	case 1, 2, 3:
		same := s.cur
		same.Labels = map[string]string{"env": "dev"}
		s.prior = &same
	default:
		other := randomMember(rng, "dev")
		s.prior = &other
	}
	if s.kind == planRequestKind && rng.IntN(2) == 0 {
		// At A or B, beside dev's folder, except where dev's folder is the whole store (folders
		// that nest are refused at plan: ownership and safety).
		alt := member("alt", locA(), "other", "other/alt", layout.Modes[rng.IntN(len(layout.Modes))], map[string]string{"env": "dev"})
		if rng.IntN(2) == 0 {
			alt.Location = locB()
		}
		if alt.Location == s.cur.Location && s.cur.Target.Root == "" {
			alt.Location = placement.BucketLocation("http://minio:9000", "store-c")
		}
		s.alt = &alt
	}
	if s.kind == removePromiseKind || s.kind == removeRequestKind {
		s.held = true
	}
	s.recorded = map[string]string{}
	return s
}

// adversarialRecord holds, each with chance 1/4, every path recordable() lists for the members.
func adversarialRecord(rng *rand.Rand, s scenario) map[string]string {
	out := map[string]string{}
	for _, m := range s.members() {
		for _, c := range recordable(m) {
			if rng.IntN(4) == 0 {
				out[c] = "0cc175b9c0f1b6a831c399e269772661"
				if strings.HasSuffix(c, "/aggregated.yaml") || strings.HasSuffix(c, "/all.yaml") || c == "aggregated.yaml" || c == "all.yaml" {
					out[c] = "part:0cc175b9c0f1b6a831c399e269772661" // as the engine records an aggregate
				}
			}
		}
	}
	return out
}

// engineRecord is what the engine recorded when it placed the resource where the destination
// was (the current member when that is unknown), with other content, plus a stray file in an
// owned folder as Refresh records it.
func engineRecord(t *testing.T, rng *rand.Rand, s scenario) map[string]string {
	at := s.cur
	if s.prior != nil {
		at = *s.prior
	}
	at.Labels = map[string]string{"env": "dev"}
	var plan placement.Plan
	var err error
	if s.kind == planPromiseKind || s.kind == removePromiseKind {
		d := deps(depsV2YAML)
		if rng.IntN(5) == 0 {
			d = deps("")
		}
		plan, _, err = placement.PlanPromise(placement.Promise{Name: "jenkins", Dependencies: d, Pool: []placement.Member{at}})
	} else {
		files := map[string]string{"old.yaml": "old", "db.yaml": "v1"}
		if rng.IntN(5) == 0 {
			files = nil
		}
		var rp placement.RequestPlan
		rp, _, err = placement.PlanRequest(placement.Request{Key: requestKey, Output: pgRequest(files), Pool: []placement.Member{at}})
		plan = rp.Plan
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for p, h := range plan.Records["dev"].Files {
		out[p] = h
	}
	for _, op := range plan.Ops {
		for _, dir := range op.Change.Prune {
			if rng.IntN(2) == 0 {
				out[dir+"stray.yaml"] = "0cc175b9c0f1b6a831c399e269772661"
			}
		}
	}
	return out
}

// members are every pool member or prior member the scenario involves.
func (s scenario) members() []placement.Member {
	out := []placement.Member{s.cur}
	if s.prior != nil {
		out = append(out, *s.prior)
	}
	if s.alt != nil {
		out = append(out, *s.alt)
	}
	return out
}

// knowable reports whether the operation can know of member m's folder: a plan knows the pool
// and where the resource was; a removal (a destroy, which Terraform gives no configuration)
// knows only where the resource was, and the destination may have moved since. It moved in the
// same apply, or the resource's own plan would have moved the files with it; in that apply the
// provider's process spares the canaries the destination wrote (see the write log in
// internal/provider), which this test of the pure engine cannot see.
func (s scenario) knowable(m placement.Member) bool {
	if s.kind == removePromiseKind || s.kind == removeRequestKind {
		return s.prior != nil && m.Location == s.prior.Location && m.Target == s.prior.Target
	}
	return true
}

func (s scenario) run() (placement.Plan, error) {
	var pool []placement.Member
	if s.inPool {
		pool = append(pool, s.cur)
	}
	if s.alt != nil {
		pool = append(pool, *s.alt)
	}
	var prior *placement.Prior
	if s.held {
		prior = &placement.Prior{Member: s.prior, Record: placement.Record{Store: "store", Files: s.recorded}}
		if s.prior != nil {
			prior.Record.Location, prior.Record.Root = s.prior.Location.String(), s.prior.Target.Root
		}
	}
	d := deps(depsYAML)
	req := pgRequest(map[string]string{"db.yaml": dbYAML, "sub/x.yaml": "x"})
	if s.empty {
		d, req = deps(""), pgRequest(nil)
	}
	priors := map[string]placement.Prior{}
	if prior != nil {
		priors["dev"] = *prior
	}
	switch s.kind {
	case planPromiseKind:
		p, _, err := placement.PlanPromise(placement.Promise{Name: "jenkins", Selector: envSelector("dev"), Dependencies: d,
			Pool: pool, Prior: priors, DeleteUnscheduled: s.delUnsched})
		return p, err
	case removePromiseKind:
		return placement.RemovePromise(d, priors)
	case planRequestKind:
		in := placement.Request{Key: requestKey, Selector: envSelector("dev"), Output: req, Pool: pool}
		if prior != nil {
			in.PriorDestination, in.Prior = "dev", prior
		}
		p, _, err := placement.PlanRequest(in)
		return p.Plan, err
	default:
		return placement.RemoveRequest(req, map[string]placement.Prior{"dev": *prior})
	}
}

// Independently of the code: where a target's aggregate parts live (the aggregatedYAML layout).
func partsDir(t layout.Target) string {
	name := t.AggregatedFilename
	if name == "" {
		name = "aggregated.yaml"
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(t.Root, t.StorePath), "/")
	if t.StorePath == "" {
		rel = t.Root
	}
	if rel == "" {
		rel = "%2E"
	}
	dir := ".kratix-aggregates/" + strings.ReplaceAll(rel, "/", "%2F") + "/" + name + "/"
	if t.StorePath != "" {
		dir = t.StorePath + "/" + dir
	}
	return dir
}

func under(root, p string) bool { return root == "" || strings.HasPrefix(p, root+"/") }

func canaryPaths(root string) []string {
	var out []string
	for _, rel := range []string{
		"dependencies/kratix-canary-namespace.yaml", "resources/kratix-canary-configmap.yaml", // nestedByMetadata
		"kratix-canary-namespace.yaml", "kratix-canary-configmap.yaml", // none, aggregatedYAML
		"crds/kratix-crds.yaml", "resources/kratix-resources.yaml", // splitByKind
	} {
		out = append(out, join(root, rel))
	}
	return out
}

func join(root, rel string) string {
	if root == "" {
		return rel
	}
	return root + "/" + rel
}

const (
	promiseWork = "jenkins-static-deps"
	requestWork = "postgres_db_default_instance-configure"
)

func ownIndex(kind scenarioKind, root string) string {
	if kind == planPromiseKind || kind == removePromiseKind {
		return join(root, ".kratix/kratix-platform-system-"+promiseWork+".dev-5058f.yaml")
	}
	return join(root, ".kratix/default-"+requestWork+".dev-5058f.yaml")
}

func ownPart(kind scenarioKind, t layout.Target) string {
	if kind == planPromiseKind || kind == removePromiseKind {
		return partsDir(t) + promiseWork + ".dev-5058f.part"
	}
	return partsDir(t) + requestWork + ".dev-5058f.part"
}

// recordable is every path a record might hold for member m: its own files in every mode and
// every trap (canaries of every mode, index files and parts of other placements, the aggregate,
// paths outside the folder).
func recordable(m placement.Member) []string {
	r := m.Target.Root
	out := canaryPaths(r)
	for _, kind := range []scenarioKind{planPromiseKind, planRequestKind} {
		out = append(out, ownIndex(kind, r))
		for _, name := range []string{"", "all.yaml"} {
			t := m.Target
			t.AggregatedFilename = name
			out = append(out, ownPart(kind, t))
		}
	}
	t := m.Target
	out = append(out,
		join(r, ".kratix/kratix-platform-system-redis-static-deps.dev-5058f.yaml"),
		join(r, ".kratix/default-"+requestWork+".prod-5058f.yaml"),
		partsDir(t)+"redis-static-deps.dev-5058f.part",
		join(r, "aggregated.yaml"), join(r, "all.yaml"),
		join(r, "dependencies/jenkins/5058f/static/jenkins-dependencies.yaml"),
		join(r, "dependencies/jenkins/5058f/stray.yaml"),
		join(r, "resources/default/postgres/db/instance-configure/5058f/db.yaml"),
		join(r, "static/jenkins-dependencies.yaml"),
		join(r, "db.yaml"),
		join(r, "crds/00-default-jenkins-default-crds.yaml"),
		join(r, "resources/01-default-jenkins-default-resources.yaml"),
		join(r, "README.md"),
		"elsewhere/x.yaml", "kratix/prod/x.yaml", "kratix/devx/x.yaml", "kratix/dev.yaml", "kratix/dev",
		"kratix/.kratix-aggregates/prod/aggregated.yaml/jenkins-static-deps.prod-5058f.part",
	)
	if r != "" {
		out = append(out, r)
	}
	return out
}

// confined reports whether p is inside the folder of a member at loc, or under the parts folder
// of an aggregatedYAML member there.
func (s scenario) confined(loc placement.Location, p string) bool {
	for _, m := range s.members() {
		if m.Location != loc {
			continue
		}
		if p != m.Target.Root && under(m.Target.Root, p) {
			return true
		}
		if mode(m.Target.Mode) == layout.ModeAggregatedYAML && strings.HasPrefix(p, partsDir(m.Target)) {
			return true
		}
	}
	return false
}

// violations says which rules deleting d in op breaks.
func (s scenario) violations(op placement.Op, d string) []string {
	var out []string
	if !s.confined(op.Location, d) {
		out = append(out, "deletes outside the destination's folder and its own parts")
	}
	for _, m := range s.members() {
		if m.Location != op.Location {
			continue
		}
		r := m.Target.Root
		for _, c := range canaryPaths(r) {
			if covers(d, c) && s.knowable(m) {
				out = append(out, "deletes a canary (any mode's canary path)")
				if (m.Name != "dev" || m.Target == s.cur.Target) && isCurrentModeCanary(m, c) {
					out = append(out, "deletes a canary of the destination's current mode")
				}
			}
		}
		own := ownIndex(s.kind, r)
		for _, idx := range []string{ownIndex(planPromiseKind, r), ownIndex(planRequestKind, r),
			join(r, ".kratix/kratix-platform-system-redis-static-deps.dev-5058f.yaml"),
			join(r, ".kratix/default-"+requestWork+".prod-5058f.yaml")} {
			if idx != own && covers(d, idx) {
				out = append(out, "deletes another placement's index file")
			}
		}
		if mode(m.Target.Mode) == layout.ModeAggregatedYAML {
			if file := join(r, aggName(m.Target)); covers(d, file) && !rebuilds(op, file) {
				out = append(out, "deletes the shared aggregate without rebuilding it")
			}
			for _, part := range []string{partsDir(m.Target) + "redis-static-deps.dev-5058f.part",
				partsDir(m.Target) + map[bool]string{true: requestWork, false: promiseWork}[s.kind == planPromiseKind || s.kind == removePromiseKind] + ".dev-5058f.part"} {
				if covers(d, part) {
					out = append(out, "deletes another placement's aggregate part")
				}
			}
		}
	}
	return dedupe(out)
}

func rebuilds(op placement.Op, file string) bool {
	for _, a := range op.Change.Aggregates {
		if a.File == file {
			return true
		}
	}
	return false
}

func isCurrentModeCanary(m placement.Member, c string) bool {
	r := m.Target.Root
	switch mode(m.Target.Mode) {
	case layout.ModeNestedByMetadata:
		return c == join(r, "dependencies/kratix-canary-namespace.yaml") || c == join(r, "resources/kratix-canary-configmap.yaml")
	case layout.ModeSplitByKind:
		return c == join(r, "crds/kratix-crds.yaml") || c == join(r, "resources/kratix-resources.yaml")
	}
	return c == join(r, "kratix-canary-namespace.yaml") || c == join(r, "kratix-canary-configmap.yaml")
}

func aggName(t layout.Target) string {
	if t.AggregatedFilename == "" {
		return "aggregated.yaml"
	}
	return t.AggregatedFilename
}

func dedupe(s []string) []string {
	sort.Strings(s)
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
