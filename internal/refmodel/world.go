package refmodel

// The randomized half of the reference model: a world and a sequence of operations drawn from a seed,
// and the Terraform configuration a world renders to. Pure: no I/O, so the generator and the
// model can be exercised together in TestModelRandomWalks without any server.

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// OpNames are the operations a step can make, as KRATIX_MODEL_OPS names them. "destroy"
// removes one object from the configuration and the next step ("recreate") puts it back.
var OpNames = []string{
	"relabel", "selectors", "move", "cosmetic", "mode", "aggname",
	"edit", "stray", "deps", "emptydeps", "reqfiles", "destroy",
	"storepath", "alias", "overlap", "canaries", "unschedule", "replace", "part", "pool", "drift", "index",
	"stage", "pause", "rollout", "reimport", "guard", "collide",
	"cordon", "drain", "untaint", "reweight", "tolerate", "replicas", "groups", "health",
	"cbd", "interrupt", "cbdinterrupt", "savedplan", "targetdestroy", "cbdgate", // lifecycle.go
}

// modelOpWeights are the operations drawn more often than the others: weight 2 makes one about
// twice as likely to come first. "health" (weight 3) only matters in worlds with the gated
// promise, half of them. "collide" is cheap (a refused plan), and at weight 1 the
// default run of 20 seeds x 10 steps draws it only about four times per store kind.
var modelOpWeights = map[string]int{"collide": 2, "drain": 2, "groups": 2, "health": 3}

// modelDriftOps are the changes "drift" combines with a hand edit: those without hand edits of
// their own.
var modelDriftOps = []string{
	"relabel", "selectors", "move", "cosmetic", "mode", "aggname", "deps", "emptydeps", "reqfiles", "destroy",
	"storepath", "alias", "unschedule", "replace", "pool",
}

var (
	modelLabelValues = map[string][]string{"env": {"dev", "prod"}, "tier": {"web", "data"}}
	modelLabelKeys   = []string{"env", "tier"}
	modelAggNames    = []string{"aggregated.yaml", "all.yaml", "fleet.yaml"}
	modelPathPrefix  = []string{"", "clusters/", "fleet/eu/"}
)

// modelStoreVariants is how many spellings of a store's address name the same place
// (Stores.Address spells them): a bucket endpoint's host in three letter cases; a git URL with
// and without ".git". (A trailing "/" is not among them: git http-backend refuses ".git//info/refs" as
// "aliased", so the test server cannot serve it.)
func modelStoreVariants(kind string) int {
	if kind == "bucket" {
		return 3
	}
	return 2
}

func newModelRNG(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x6b72617469782d6d))
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

func randomLabels(rng *rand.Rand) map[string]string {
	labels := map[string]string{}
	for _, k := range modelLabelKeys {
		if rng.IntN(10) < 6 {
			labels[k] = pick(rng, modelLabelValues[k])
		}
	}
	return labels
}

func randomLabel(rng *rand.Rand) map[string]string {
	k := pick(rng, modelLabelKeys)
	return map[string]string{k: pick(rng, modelLabelValues[k])}
}

func randomPromiseSelectors(rng *rand.Rand) modelSelector {
	switch n := rng.IntN(10); {
	case n < 3:
		return nil
	case n < 8:
		return modelSelector{randomLabel(rng)}
	default:
		// Two entries naming the same key: the first wins (merging match_labels, as Kratix does).
		first := randomLabel(rng)
		second := randomLabel(rng)
		for k := range first {
			for _, v := range modelLabelValues[k] {
				if v != first[k] {
					second[k] = v
				}
			}
		}
		return modelSelector{first, second}
	}
}

func randomRequestSelectors(rng *rand.Rand) modelSelector {
	if rng.IntN(10) < 6 {
		return nil
	}
	return modelSelector{randomLabel(rng)}
}

func randomRequestOutput(rng *rand.Rand) (files, documents int) {
	for {
		files, documents = rng.IntN(modelRequestFilesCount), rng.IntN(modelRequestDocumentsCount)
		if files != modelRequestNoFiles || documents != 0 { // a request needs files or documents
			return files, documents
		}
	}
}

// newModelWorld draws a world: three store resources (two buckets, the first named by two
// resources), three or four destinations, two promises and one or two requests.
func newModelWorld(rng *rand.Rand, kind string, modes []string) *modelWorld {
	w := &modelWorld{kind: kind, modes: modes}
	for i, bucket := range []int{0, 1, 0} {
		sp := pick(rng, modelStorePaths)
		w.stores = append(w.stores, &modelStore{
			bucket: bucket, path: sp, spelling: rng.IntN(len(modelStorePathSpellings[sp])), secret: "s",
			variant: min(i/2, modelStoreVariants(kind)-1), // the second resource for bucket 0 spells it another way
		})
	}
	for i := range 3 + rng.IntN(2) {
		name := fmt.Sprintf("d%d", i)
		w.dests = append(w.dests, &modelDest{
			name: name, present: true, store: rng.IntN(len(w.stores)), path: pick(rng, modelPathPrefix) + name,
			labels: randomLabels(rng), strict: rng.IntN(4) == 0, mode: pick(rng, modes),
			agg: pick(rng, modelAggNames), cleanup: pick(rng, []string{"all", "none"}), noInit: rng.IntN(6) == 0,
		})
	}
	if rng.IntN(3) == 0 {
		// One destination at its store's root (path "." or "/"): then no other may be in
		// that store path of that bucket, so it takes a store where that holds, if there is one.
		d := w.dests[rng.IntN(len(w.dests))]
		before := *d
		d.path = pick(rng, []string{".", "/"})
		for _, i := range rng.Perm(len(w.stores)) {
			if d.store = i; !modelFoldersOverlap(w) {
				break
			}
		}
		if modelFoldersOverlap(w) {
			*d = before
		}
	}
	for i := range 2 {
		deps := 1 + rng.IntN(len(modelDepsCorpus)-1) // "emptydeps" makes them empty
		w.promises = append(w.promises, &modelPromise{name: fmt.Sprintf("p%d", i), present: true, selectors: randomPromiseSelectors(rng), deps: deps,
			delete: rng.IntN(4) == 0})
		if rng.IntN(2) == 0 {
			// A rollout has something to stage when the promise goes to most destinations.
			w.promises[i].rollout = randomRollout(rng)
			if rng.IntN(4) > 0 {
				w.promises[i].selectors = nil
			}
		}
	}
	for i := range 1 + rng.IntN(2) {
		files, docs := randomRequestOutput(rng)
		w.requests = append(w.requests, &modelRequest{
			name: fmt.Sprintf("r%d", i), namespace: pick(rng, []string{"default", "team-a"}),
			pipeline: pick(rng, []string{"", "configure"}), present: true, promise: rng.IntN(2),
			selectors: randomRequestSelectors(rng), files: files, documents: docs,
		})
	}
	drawTaints(rng, w)
	drawReplicas(rng, w)
	drawGroups(rng, w)
	if rng.IntN(2) == 0 {
		w.promises = append(w.promises, gatedPromise(rng)) // gate.go
	}
	return w
}

// ---------------------------------------------------------------------------------------------
// Operations.

// Op is one step's change: the configuration is edited in place (NextOp has made it); Hand are
// edits the runner makes directly in the stores (with its independent clients) before the apply.
type Op struct {
	Name, Desc string
	Hand       []Hand
	// Replace are resource addresses for `terraform apply -replace=...`.
	Replace []string
	// Quiet: the apply must replace nothing and write nothing (no commit, no object written or
	// deleted): the change does not move any file (ownership: files follow their owner, not their folder).
	Quiet bool
	// ExpectError: the apply must fail at plan with this message and write nothing; then Revert
	// restores the configuration, which the step applies as usual (the model is unchanged).
	ExpectError string
	// ExpectAlso: more the refusal must say (case and line breaks aside), such as both owners
	// of a file two requests write.
	ExpectAlso []string
	Revert     func()
	// AckGuard: instead of reverting after the refusal, set the acknowledgement the refusal
	// printed on this promise's guard (Model.AcknowledgeGuard) and apply the same change
	// (guard.go).
	AckGuard string
	// StateRm are resource addresses the runner removes from state (`terraform state rm`)
	// before the apply; the world's imports bring them back (see "reimport").
	StateRm []string
	// Records are HealthRecords the runner writes in the observe store before the apply
	// ("health", gate.go).
	Records []Record
	// Part: an aggregate part (or a mode none index file) the provider recorded in state is
	// deleted or edited by hand (the runner finds it); the apply must put it back, byte for byte
	// (and repair the aggregate).
	Part *PartEdit
	// Interrupt: the apply must fail with InterruptError (a resource that depends on a random
	// object fails at apply, lifecycle.go); the runner checks the folders, then calls
	// EndInterrupt and applies again.
	Interrupt bool
	// SavedPlan are store changes another writer makes between `terraform plan -out` and the
	// apply of that plan, which may delete only files the plan showed; the runner then applies
	// again.
	SavedPlan []Hand
	// TargetDestroy: the runner runs `terraform destroy -target=<it>` instead of an apply, then
	// calls EndTargetDestroy.
	TargetDestroy string
}

// PartEdit says which file recorded in state Op.Part edits, and how.
type PartEdit struct {
	Dir    string // modelAggregatesDir (".kratix-aggregates") for a part, ".kratix" for an index file
	Pick   int    // which of the files recorded in state (modulo their number)
	Delete bool   // delete it; otherwise overwrite it
}

// Hand is a file the runner writes (or deletes, when Content is nil) directly in store 0 or 1.
type Hand struct {
	Store   int
	Path    string
	Content []byte // nil: delete the file
}

// nextOp draws the next operation among allowed ones and applies it to the configuration (and to
// the model, for files added by hand beside the owned folders, which must stay).
func (m *Model) nextOp(rng *rand.Rand, allowed []string) Op {
	w := m.w
	m.now = m.now.Add(time.Second) // every step at a time of its own; "health" moves it further
	w.cbd, w.interrupt, w.targeted = nil, "", false
	if len(w.pending) > 0 {
		var names []string
		for _, p := range w.pending {
			kind, name := p[:1], p[2:]
			names = append(names, name)
			switch kind {
			case "d":
				w.dest(name).present = true
			case "p":
				w.promise(name).present = true
			case "r":
				w.request(name).present = true
			}
		}
		w.pending = nil
		return Op{Name: "recreate", Desc: strings.Join(names, ", ")}
	}
	var order []string
	for _, name := range allowed {
		for range max(1, modelOpWeights[name]) {
			order = append(order, name)
		}
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	// (The gated promise's rollout is "health"'s business: see below.)
	flying := slices.ContainsFunc(m.InFlight(), func(p string) bool { return !m.w.promise(p).gated() })
	if flying && rng.IntN(2) == 0 || !flying && m.hasRollout() && rng.IntN(3) == 0 {
		// While a rollout is in flight, half of the steps change what it rolls out or where; a
		// third of the others start one.
		var first []string
		ops := modelRolloutOps
		if !flying {
			ops = []string{"stage"}
		}
		for _, name := range ops {
			if slices.Contains(allowed, name) {
				first = append(first, name)
			}
		}
		rng.Shuffle(len(first), func(i, j int) { first[i], first[j] = first[j], first[i] })
		order = append(first, order...)
	}
	if slices.Contains(allowed, "health") && slices.ContainsFunc(m.InFlight(), func(p string) bool { return m.w.promise(p).gated() }) && rng.IntN(3) > 0 {
		order = append([]string{"health"}, order...) // a gated rollout in flight: records, and time
	}
	if m.gateBusy() && rng.IntN(4) == 0 {
		// pg's gate holds, has failed or has rolled back: now and then a replacement or an
		// import aimed at it (gate.go, "Replace and import"), before anything else.
		var aimed []string
		for _, name := range []string{"replace", "cbdgate", "reimport"} {
			if slices.Contains(allowed, name) {
				aimed = append(aimed, name)
			}
		}
		if len(aimed) > 0 {
			name := pick(rng, aimed)
			w.aimGate = true
			op, ok := m.tryValidOp(rng, name)
			w.aimGate = false
			if ok {
				op.Name = name
				return op
			}
		}
	}
	for _, name := range order {
		if op, ok := m.tryValidOp(rng, name); ok {
			op.Name = name
			return op
		}
	}
	return Op{Name: "noop", Desc: "no allowed operation applies"}
}

// tryValidOp is tryOp, undone when it would give two destinations overlapping folders (but for
// "overlap", which does so on purpose and reverts).
func (m *Model) tryValidOp(rng *rand.Rand, name string) (Op, bool) {
	saved := m.w.clone()
	op, ok := m.tryOp(rng, name)
	if ok && (op.ExpectError != "" && op.AckGuard == "" || !modelFoldersOverlap(m.w)) {
		return op, true
	}
	*m.w = *saved
	return Op{}, false
}

// clone is a deep copy of the configuration.
func (w *modelWorld) clone() *modelWorld {
	c := *w
	c.stores, c.dests, c.promises, c.requests = nil, nil, nil, nil
	for _, s := range w.stores {
		s2 := *s
		c.stores = append(c.stores, &s2)
	}
	for _, d := range w.dests {
		d2 := *d
		d2.labels = maps.Clone(d.labels)
		d2.taints = slices.Clone(d.taints)
		c.dests = append(c.dests, &d2)
	}
	for _, p := range w.promises {
		p2 := *p
		p2.left = maps.Clone(p.left)
		p2.rollout = p.rollout.clone()
		p2.guard = p.guard.clone()
		p2.tolerations = slices.Clone(p.tolerations)
		c.promises = append(c.promises, &p2)
	}
	for _, r := range w.requests {
		r2 := *r
		r2.tolerations = slices.Clone(r.tolerations)
		r2.groups = maps.Clone(r.groups)
		c.requests = append(c.requests, &r2)
	}
	c.pending, c.replaced, c.edited, c.imports = slices.Clone(w.pending), slices.Clone(w.replaced), slices.Clone(w.edited), slices.Clone(w.imports)
	c.adopted = maps.Clone(w.adopted)
	c.reimported = slices.Clone(w.reimported)
	c.cbd = slices.Clone(w.cbd)
	return &c
}

func presentDests(w *modelWorld) []*modelDest {
	var out []*modelDest
	for _, d := range w.dests {
		if d.present {
			out = append(out, d)
		}
	}
	return out
}

func (m *Model) tryOp(rng *rand.Rand, name string) (Op, bool) {
	w := m.w
	dests := presentDests(w)
	var promises []*modelPromise
	for _, p := range w.promises {
		if p.present && !p.gated() { // the gated promise is "health"'s alone (gate.go)
			promises = append(promises, p)
		}
	}
	var requests []*modelRequest
	for _, r := range w.requests {
		if r.present {
			requests = append(requests, r)
		}
	}
	switch name {
	case "relabel":
		if len(dests) == 0 {
			return Op{}, false
		}
		d := pick(rng, dests)
		before := d.labels
		for i := 0; i < 8 && maps.Equal(d.labels, before); i++ {
			d.labels = randomLabels(rng)
			if z, ok := before[modelZoneKey]; ok {
				d.labels[modelZoneKey] = z // the zone stays (spread's domains change only on purpose)
			}
		}
		return Op{Desc: fmt.Sprintf("%s labels %s -> %s", d.name, labelText(before), labelText(d.labels))}, true

	case "selectors":
		n := len(promises) + len(requests)
		if n == 0 {
			return Op{}, false
		}
		i := rng.IntN(n)
		if i < len(promises) {
			p := promises[i]
			before := p.selectors
			for j := 0; j < 8 && selectorText2(p.selectors) == selectorText2(before); j++ {
				p.selectors = randomPromiseSelectors(rng)
			}
			return Op{Desc: fmt.Sprintf("promise %s selectors %s -> %s", p.name, selectorText2(before), selectorText2(p.selectors))}, true
		}
		r := requests[i-len(promises)]
		before := r.selectors
		for j := 0; j < 8 && selectorText2(r.selectors) == selectorText2(before); j++ {
			r.selectors = randomRequestSelectors(rng)
		}
		return Op{Desc: fmt.Sprintf("request %s selectors %s -> %s", r.name, selectorText2(before), selectorText2(r.selectors))}, true

	case "move":
		if len(dests) == 0 {
			return Op{}, false
		}
		d := pick(rng, dests)
		from := d.store
		var others []int
		for i, s := range w.stores {
			if s.bucket != w.stores[from].bucket {
				others = append(others, i)
			}
		}
		d.store = pick(rng, others)
		return Op{Desc: fmt.Sprintf("%s (%s, cleanup %s) from store %d to store %d (the other bucket)", d.name, d.mode, d.cleanup, from, d.store)}, true

	case "alias":
		// To the other store resource of the same bucket: not a move while the store paths are
		// equal; with other store paths, either the same folder (the path is adjusted) or another.
		var movable []*modelDest
		for _, d := range dests {
			if len(w.aliases(d.store)) > 0 {
				movable = append(movable, d)
			}
		}
		if len(movable) == 0 {
			return Op{}, false
		}
		d := pick(rng, movable)
		from, beforePath, beforeRoot := d.store, d.path, w.root(d)
		d.store = pick(rng, w.aliases(from))
		to := w.stores[d.store]
		if to.path != w.stores[from].path && rng.IntN(2) == 0 {
			switch {
			case to.path == "":
				d.path = beforeRoot
			case strings.HasPrefix(beforeRoot, to.path+"/"):
				d.path = strings.TrimPrefix(beforeRoot, to.path+"/")
			}
		}
		op := Op{Desc: fmt.Sprintf("%s (%s, cleanup %s) from store %d (path %q) to store %d (path %q), same bucket; path %s -> %s, folder %s -> %s",
			d.name, d.mode, d.cleanup, from, w.stores[from].path, d.store, to.path, beforePath, d.path, beforeRoot, w.root(d))}
		if to.path == w.stores[from].path && d.path == beforePath {
			op.Quiet = true
			op.Desc += ": not a move"
		}
		return op, true

	case "storepath":
		i := rng.IntN(len(w.stores))
		s := w.stores[i]
		before := s.path
		for s.path == before {
			s.path = pick(rng, modelStorePaths)
		}
		s.spelling = rng.IntN(len(modelStorePathSpellings[s.path]))
		op := Op{Desc: fmt.Sprintf("store %d: path %q -> %q (spelled %q)", i, before, s.path, modelStorePathSpellings[s.path][s.spelling])}
		var moved []string
		for _, d := range dests {
			if d.store == i {
				moved = append(moved, fmt.Sprintf("%s (%s, cleanup %s)", d.name, d.mode, d.cleanup))
			}
		}
		if len(moved) == 0 {
			op.Quiet = true
			op.Desc += ": no destination on it"
		} else {
			op.Desc += ": moves " + strings.Join(moved, ", ")
		}
		return op, true

	case "cosmetic":
		i := rng.IntN(len(w.stores))
		s := w.stores[i]
		what := []string{"path", "secret_ref", "address"}
		if w.kind != "bucket" {
			what = append(what, "author")
		}
		op := Op{Quiet: true}
		switch pick(rng, what) {
		case "path":
			spellings := modelStorePathSpellings[s.path]
			before := s.spelling
			s.spelling = (s.spelling + 1 + rng.IntN(len(spellings)-1)) % len(spellings)
			op.Desc = fmt.Sprintf("store %d: path spelled %q -> %q", i, spellings[before], spellings[s.spelling])
		case "secret_ref":
			s.secret = map[string]string{"s": "t", "t": "s"}[s.secret]
			op.Desc = fmt.Sprintf("store %d: secret_ref = %q (same credentials)", i, s.secret)
		case "address":
			before := s.variant
			n := modelStoreVariants(w.kind)
			s.variant = (s.variant + 1 + rng.IntN(n-1)) % n
			op.Desc = fmt.Sprintf("store %d: address spelling %d -> %d", i, before, s.variant)
		default:
			s.author = !s.author
			op.Desc = fmt.Sprintf("store %d: explicit author %v", i, s.author)
		}
		return op, true

	case "overlap":
		return m.overlapOp(rng, dests, promises)

	case "stage", "pause", "rollout":
		return m.rolloutOp(rng, name, promises)

	case "canaries":
		if len(dests) == 0 {
			return Op{}, false
		}
		d := pick(rng, dests)
		loc := m.applied[d.name].loc
		canaries := canaryFiles(d.mode, loc.root).files
		paths := modelKeys(canaries)
		if !d.noInit {
			d.noInit = true
			op := Op{Desc: fmt.Sprintf("%s (%s): init_workloads = false", d.name, d.mode)}
			if rng.IntN(2) == 0 {
				// One of them no longer recorded: both must go all the same.
				gone := pick(rng, paths)
				op.Hand = []Hand{{Store: loc.store, Path: gone}}
				op.Desc += ", after deleting " + gone + " by hand"
			}
			return op, true
		}
		if rng.IntN(2) == 0 {
			d.noInit = false
			return Op{Desc: fmt.Sprintf("%s (%s): init_workloads = true", d.name, d.mode)}, true
		}
		// A canary written by hand while init_workloads is false: the destination claims the
		// path, so the apply removes it.
		p := pick(rng, paths)
		return Op{Desc: fmt.Sprintf("%s (%s, init_workloads = false): write canary %s by hand", d.name, d.mode, p),
			Hand: []Hand{{Store: loc.store, Path: p, Content: canaries[p]}}}, true

	case "unschedule":
		if len(promises) == 0 {
			return Op{}, false
		}
		p := pick(rng, promises)
		p.delete = !p.delete
		return Op{Desc: fmt.Sprintf("promise %s on_unschedule = %q", p.name, map[bool]string{true: "delete", false: "keep"}[p.delete])}, true

	case "pool":
		// A destination leaves one promise's pool (it stays in the configuration and in the
		// other promise's pool), or comes back.
		if len(promises) == 0 || len(dests) == 0 {
			return Op{}, false
		}
		p, d := pick(rng, promises), pick(rng, dests)
		if p.left == nil {
			p.left = map[string]bool{}
		}
		p.left[d.name] = !p.left[d.name]
		if !p.left[d.name] {
			delete(p.left, d.name)
			return Op{Desc: fmt.Sprintf("%s (%s, cleanup %s) back in promise %s's pool", d.name, d.mode, d.cleanup, p.name)}, true
		}
		desc := fmt.Sprintf("%s (%s, cleanup %s) leaves promise %s's pool", d.name, d.mode, d.cleanup, p.name)
		for _, r := range requests {
			if w.promises[r.promise] == p && slices.Contains(m.choice[r.name], d.name) {
				desc += fmt.Sprintf(" (request %s is on it)", r.name)
			}
		}
		return Op{Desc: desc}, true

	case "guard":
		return m.guardOp(rng)

	case "collide":
		return m.collideOp(rng, dests, requests)

	case "cordon", "drain", "untaint", "reweight", "tolerate":
		return m.taintOp(rng, name, dests, promises, requests)

	case "replicas":
		return m.replicasOp(rng, requests)

	case "groups":
		return m.groupsOp(rng, requests)

	case "cbd", "interrupt", "cbdinterrupt", "savedplan", "targetdestroy", "cbdgate":
		return m.lifecycleOp(rng, name)

	case "health":
		return m.healthOp(rng)

	case "reimport":
		// `terraform state rm`, then an import block: the usual way to move an object between
		// states. The object adopts what it finds, so nothing is written and nothing changes for
		// the model (a rollout in flight goes on where it stands).
		var targets []string
		for _, p := range promises {
			targets = append(targets, "kratix_promise."+p.name+"="+p.name)
		}
		if p := w.promise(modelGatedPromise); p != nil && p.present {
			// The gated promise in any state of its rollout (gate.go, "Replace and import").
			targets = append(targets, "kratix_promise."+p.name+"="+p.name, "kratix_promise."+p.name+"="+p.name)
			if w.aimGate {
				targets = []string{"kratix_promise." + p.name + "=" + p.name}
			}
		}
		for _, r := range requests {
			// (Not one with workload groups: where an import finds its groups is not something
			// the model states.)
			if p := w.promises[r.promise]; p.present && len(r.groups) == 0 {
				targets = append(targets, fmt.Sprintf("kratix_resource_request.%s=%s/%s/%s", r.name, p.name, r.namespace, r.kratixName()))
			}
		}
		if len(targets) == 0 {
			return Op{}, false
		}
		target := pick(rng, targets)
		flying := slices.DeleteFunc(m.InFlight(), func(p string) bool { return w.promise(p).gated() })
		if len(flying) > 0 && !w.aimGate && rng.IntN(2) == 0 {
			name := pick(rng, flying) // mid-rollout: the import must pick the rollout up where it stands
			target = "kratix_promise." + name + "=" + name
		}
		addr, id, _ := strings.Cut(target, "=")
		w.imports = []string{target}
		if name, ok := strings.CutPrefix(addr, "kratix_resource_request."); ok {
			w.adopted = map[string]bool{name: true}
		}
		desc := fmt.Sprintf("terraform state rm %s, then import it as %q", addr, id)
		quiet := true
		if name, ok := strings.CutPrefix(addr, "kratix_promise."); ok && w.promise(name).gated() {
			// The gate's rollout is read back from the stores (gate.go); only a rollback the
			// records do not recover starts the rollout again, writing its first wave.
			w.reimported = []string{"p:" + name}
			desc += " (gated: " + m.gateStateText(w.promise(name)) + ")"
			quiet = !m.importRestarts(w.promise(name))
		}
		return Op{Desc: desc, StateRm: []string{addr}, Quiet: quiet}, true

	case "replace":
		// `terraform apply -replace=...`: mostly a destination (whose promises and requests must
		// write again after its cleanup), sometimes a promise or a request (deleted, then created
		// afresh: a promise loses its misscheduled files, a request chooses again).
		var targets []string
		for _, d := range dests {
			targets = append(targets, "d:"+d.name, "d:"+d.name)
		}
		for _, p := range promises {
			targets = append(targets, "p:"+p.name)
		}
		if p := w.promise(modelGatedPromise); p != nil && p.present {
			targets = append(targets, "p:"+p.name, "p:"+p.name) // in any state of its rollout (gate.go)
			if w.aimGate {
				targets = []string{"p:" + p.name}
			}
		}
		for _, r := range requests {
			targets = append(targets, "r:"+r.name)
		}
		if len(targets) == 0 {
			return Op{}, false
		}
		target := pick(rng, targets)
		w.replaced = []string{target}
		kind, name := target[:1], target[2:]
		switch kind {
		case "d":
			d := w.dest(name)
			return Op{Desc: fmt.Sprintf("terraform apply -replace=kratix_destination.%s (%s, cleanup %s)", d.name, d.mode, d.cleanup),
				Replace: []string{"kratix_destination." + d.name}}, true
		case "p":
			return Op{Desc: "terraform apply -replace=kratix_promise." + name + m.targetText(target), Replace: []string{"kratix_promise." + name}}, true
		default:
			return Op{Desc: fmt.Sprintf("terraform apply -replace=kratix_resource_request.%s (on %q)", name, m.choice[name]),
				Replace: []string{"kratix_resource_request." + name}}, true
		}

	case "drift":
		// A file deleted or overwritten by hand, and a change of the configuration, in one apply:
		// the change is planned from what the store holds, not from what state recorded.
		var files []liveFile
		for _, f := range m.liveFiles() {
			if !m.isAggregate(f.Hand) { // an aggregate holds other placements' documents too
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			return Op{}, false
		}
		f := pick(rng, files)
		verb := "delete"
		if rng.IntN(2) == 1 {
			f.Content = []byte("# edited by hand\nkind: Tampered\n")
			verb = "overwrite"
		}
		order := slices.Clone(modelDriftOps)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, name := range order {
			if op, ok := m.tryValidOp(rng, name); ok {
				w.edited = []Hand{f.Hand}
				return Op{Desc: fmt.Sprintf("%s %s (store %d) by hand, and %s: %s", verb, f.Path, f.Store, name, op.Desc),
					Hand: []Hand{f.Hand}, Replace: op.Replace}, true
			}
		}
		return Op{}, false

	case "part":
		// A placement waiting in a rollout is not written, so not repaired either: no part is
		// edited while a rollout is in flight.
		if !m.hasLiveContribution() || len(m.InFlight()) > 0 {
			return Op{}, false
		}
		edit := &PartEdit{Dir: modelAggregatesDir, Pick: rng.IntN(1 << 20), Delete: rng.IntN(2) == 0}
		return Op{Desc: fmt.Sprintf("%s an aggregate part by hand", map[bool]string{true: "delete", false: "overwrite"}[edit.Delete]), Part: edit}, true

	case "index":
		if !m.hasLiveIndex() || len(m.InFlight()) > 0 {
			return Op{}, false
		}
		edit := &PartEdit{Dir: ".kratix", Pick: rng.IntN(1 << 20), Delete: rng.IntN(2) == 0}
		return Op{Desc: fmt.Sprintf("%s a .kratix/ index file by hand", map[bool]string{true: "delete", false: "overwrite"}[edit.Delete]), Part: edit}, true

	case "mode":
		if len(dests) == 0 || len(w.modes) < 2 {
			return Op{}, false
		}
		d := pick(rng, dests)
		before := d.mode
		for d.mode == before {
			d.mode = pick(rng, w.modes)
		}
		return Op{Desc: fmt.Sprintf("%s (cleanup %s) filepath_mode %s -> %s", d.name, d.cleanup, before, d.mode)}, true

	case "aggname":
		var agg []*modelDest
		for _, d := range dests {
			if d.mode == modeAgg {
				agg = append(agg, d)
			}
		}
		if len(agg) == 0 {
			return Op{}, false
		}
		d := pick(rng, agg)
		before := d.agg
		for d.agg == before {
			d.agg = pick(rng, modelAggNames)
		}
		return Op{Desc: fmt.Sprintf("%s (cleanup %s) aggregated_filename %s -> %s", d.name, d.cleanup, before, d.agg)}, true

	case "edit":
		files := m.liveFiles()
		if len(files) == 0 {
			return Op{}, false
		}
		f := pick(rng, files)
		if rng.IntN(2) == 0 {
			return Op{Desc: fmt.Sprintf("delete %s (store %d) by hand", f.Path, f.Store), Hand: []Hand{{Store: f.Store, Path: f.Path}}}, true
		}
		f.Content = []byte("# edited by hand\nkind: Tampered\n")
		return Op{Desc: fmt.Sprintf("overwrite %s (store %d) by hand", f.Path, f.Store), Hand: []Hand{f.Hand}}, true

	case "stray":
		if len(dests) == 0 {
			return Op{}, false
		}
		d := pick(rng, dests)
		loc := m.applied[d.name].loc
		beside := inFolder(loc.root, pick(rng, []string{"NOTES.md", "resources/kustomization.yaml"}))
		content := []byte("# added by hand beside the provider's files: must stay\n")
		if m.beside[loc] == nil {
			m.beside[loc] = map[string][]byte{}
		}
		m.beside[loc][beside] = content
		op := Op{Desc: "add " + beside, Hand: []Hand{{Store: loc.store, Path: beside, Content: content}}}
		var folders []Hand
		for _, f := range m.liveFiles() {
			if f.folder != "" {
				folders = append(folders, Hand{Store: f.Store, Path: f.folder + "stray-by-hand.yaml", Content: []byte("# added by hand inside an owned folder: must go\n")})
			}
		}
		if len(folders) > 0 {
			in := pick(rng, folders)
			op.Hand = append(op.Hand, in)
			op.Desc += " and " + in.Path
		}
		return op, true

	case "deps":
		if len(promises) == 0 {
			return Op{}, false
		}
		p := pick(rng, promises)
		before := p.deps
		for p.deps == before || p.deps == 0 {
			p.deps = rng.IntN(len(modelDepsCorpus))
		}
		return Op{Desc: fmt.Sprintf("promise %s dependencies #%d -> #%d", p.name, before, p.deps)}, true

	case "emptydeps":
		var some []*modelPromise
		for _, p := range promises {
			if p.deps != 0 {
				some = append(some, p)
			}
		}
		if len(some) == 0 {
			return Op{}, false
		}
		p := pick(rng, some)
		before := p.deps
		p.deps = 0
		return Op{Desc: fmt.Sprintf("promise %s dependencies #%d -> %q", p.name, before, modelNoDocuments.literal)}, true

	case "reqfiles":
		if len(requests) == 0 {
			return Op{}, false
		}
		r := pick(rng, requests)
		bf, bd := r.files, r.documents
		for r.files == bf && r.documents == bd {
			r.files, r.documents = randomRequestOutput(rng)
		}
		desc := fmt.Sprintf("request %s files #%d -> #%d, documents #%d -> #%d", r.name, bf, r.files, bd, r.documents)
		if gone := dropStaleGroups(r); len(gone) > 0 {
			desc += fmt.Sprintf(", groups %q dropped (their folders are gone)", gone)
		}
		return Op{Desc: desc}, true

	case "destroy":
		var targets []string
		for _, d := range dests {
			targets = append(targets, "d:"+d.name)
		}
		for _, p := range promises {
			targets = append(targets, "p:"+p.name)
		}
		for _, r := range requests {
			targets = append(targets, "r:"+r.name)
		}
		if len(targets) == 0 {
			return Op{}, false
		}
		target := pick(rng, targets)
		kind, name := target[:1], target[2:]
		w.pending = []string{target}
		switch kind {
		case "d":
			d := w.dest(name)
			d.present = false
			return Op{Desc: fmt.Sprintf("destination %s (%s, cleanup %s)", name, d.mode, d.cleanup)}, true
		case "p":
			w.promise(name).present = false
			desc := "promise " + name
			for i, r := range w.requests {
				if r.present && w.promises[r.promise].name == name {
					// A request cannot outlive the promise it refers to in the configuration.
					r.present = false
					w.pending = append(w.pending, "r:"+r.name)
					desc += fmt.Sprintf(" and its request %s", w.requests[i].name)
				}
			}
			return Op{Desc: desc}, true
		default:
			w.request(name).present = false
			return Op{Desc: "request " + name}, true
		}
	}
	panic("unknown operation " + name)
}

// liveFile is a file the last apply wrote for the current configuration, and the folder its
// placement owns (nestedByMetadata) if any.
type liveFile struct {
	Hand
	folder string
}

// liveFiles are the files written for the current configuration (canaries, scheduled
// placements, requests, and aggregates) at the destinations' current folders, sorted: the files
// a hand edit may touch and the apply must repair. Index files are left alone (their names are
// the provider's), and so are misscheduled files, which are not updated.
func (m *Model) liveFiles() []liveFile {
	type lf = liveFile
	var out []lf
	for _, d := range presentDests(m.w) {
		loc := m.applied[d.name].loc
		for _, e := range m.ledger[loc] {
			if e.status != stLive || m.waitingWithOwn(e) {
				continue
			}
			for _, p := range modelKeys(e.files) {
				out = append(out, lf{Hand{Store: loc.store, Path: p}, e.folder})
			}
			if len(e.docs) > 0 && !slices.ContainsFunc(out, func(f lf) bool { return f.Store == loc.store && f.Path == e.aggPath }) {
				out = append(out, lf{Hand{Store: loc.store, Path: e.aggPath}, ""})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Store != out[j].Store {
			return out[i].Store < out[j].Store
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// isAggregate: h names an aggregatedYAML file the model knows.
func (m *Model) isAggregate(h Hand) bool {
	for loc, entries := range m.ledger {
		for _, e := range entries {
			if loc.store == h.Store && e.aggPath == h.Path {
				return true
			}
		}
	}
	return false
}

// aliases are the other store resources that name the same bucket as store i.
func (w *modelWorld) aliases(i int) []int {
	var out []int
	for j, s := range w.stores {
		if j != i && s.bucket == w.stores[i].bucket {
			out = append(out, j)
		}
	}
	return out
}

// hasLiveContribution: some present aggregatedYAML destination holds a contribution the current
// configuration wrote (so that an aggregate part exists that the next apply must repair).
func (m *Model) hasLiveContribution() bool {
	for _, d := range presentDests(m.w) {
		for _, e := range m.ledger[m.applied[d.name].loc] {
			if e.status == stLive && len(e.docs) > 0 {
				return true
			}
		}
	}
	return false
}

// hasLiveIndex: some present destination in mode none holds an index file the current
// configuration wrote.
func (m *Model) hasLiveIndex() bool {
	for _, d := range presentDests(m.w) {
		for _, e := range m.ledger[m.applied[d.name].loc] {
			if e.status == stLive && e.index != nil {
				return true
			}
		}
	}
	return false
}

// holdsOthers: the documented modes whose destination may hold other destinations' folders
// (the guide "Moving from Kratix").
func holdsOthers(mode string) bool { return mode == "none" || mode == "aggregatedYAML" }

// overlapOp gives a destination a folder equal to, inside or around another's, in the same
// bucket, possibly through the other store resource of that bucket: the plan must refuse it
// (one path, one owner; a collision is refused at plan) while a promise lists both, and nothing may be written. Then it is reverted.
func (m *Model) overlapOp(rng *rand.Rand, dests []*modelDest, promises []*modelPromise) (Op, bool) {
	w := m.w
	if len(promises) == 0 {
		return Op{}, false // the pools are what refuse overlapping folders
	}
	p := pick(rng, promises)
	var pool []*modelDest
	for _, d := range dests {
		if p.inPool(d) {
			pool = append(pool, d)
		}
	}
	if len(pool) < 2 {
		return Op{}, false
	}
	a := pick(rng, pool)
	var others []*modelDest
	for _, d := range pool {
		if d != a {
			others = append(others, d)
		}
	}
	b := pick(rng, others)
	rootA := w.root(a)
	bucket := w.stores[a.store].bucket
	// The folders to give b: rootA itself, one inside it, or one around it (up to the bucket's
	// root).
	// A destination in mode none or aggregatedYAML may hold others (it writes only the files it
	// names: Kratix's root destination), so a folder inside such a one is not refused: a is the
	// outer one of rootA's inner folder, b of the folders around it.
	targets := []string{rootA}
	if !holdsOthers(a.mode) {
		targets = append(targets, inFolder(rootA, "nested"))
	}
	if !holdsOthers(b.mode) {
		for dir := path.Dir(rootA); dir != "."; dir = path.Dir(dir) {
			targets = append(targets, dir)
		}
		if rootA != "" {
			targets = append(targets, "")
		}
	}
	target := pick(rng, targets)
	var stores []int
	for i, s := range w.stores {
		if s.bucket == bucket && (s.path == "" || target == s.path || strings.HasPrefix(target, s.path+"/")) {
			stores = append(stores, i)
		}
	}
	if len(stores) == 0 {
		return Op{}, false
	}
	oldStore, oldPath := b.store, b.path
	b.store = pick(rng, stores)
	b.path = "."
	if sp := w.stores[b.store].path; target != sp {
		b.path = strings.TrimPrefix(target, sp+"/")
		if sp == "" {
			b.path = target
		}
	}
	how := map[bool]string{true: "the folder of", false: "a folder overlapping that of"}[target == rootA]
	return Op{
		Desc: fmt.Sprintf("%s to store %d (path %q) with path %q: folder %s, %s %s (store %d, folder %s), both in promise %s's pool; the plan must refuse it, then it is reverted",
			b.name, b.store, w.stores[b.store].path, b.path, target, how, a.name, a.store, rootA, p.name),
		ExpectError: "Overlapping Destination Folders",
		Revert:      func() { b.store, b.path = oldStore, oldPath },
	}, true
}

func labelText(labels map[string]string) string {
	var parts []string
	for _, k := range modelKeys(labels) {
		parts = append(parts, k+"="+labels[k])
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func selectorText2(s modelSelector) string {
	if len(s) == 0 {
		return "none"
	}
	var parts []string
	for _, e := range s {
		parts = append(parts, labelText(e))
	}
	return strings.Join(parts, "+")
}

// describe is a one-paragraph account of the world, for failure reports.
func (w *modelWorld) describe() string {
	var b strings.Builder
	for i, s := range w.stores {
		fmt.Fprintf(&b, "\n      store %d: bucket %d, path %q (spelled %q), secret %s, address spelling %d, author %v",
			i, s.bucket, s.path, modelStorePathSpellings[s.path][s.spelling], s.secret, s.variant, s.author)
	}
	for _, d := range w.dests {
		fmt.Fprintf(&b, "\n      %s: store %d, path %s (folder %s), labels %s, strict %v, %s, aggregate %s, cleanup %s, init_workloads %v, taints %s, weight %s",
			d.name, d.store, d.path, w.root(d), labelText(d.labels), d.strict, d.mode, d.agg, d.cleanup, !d.noInit, listText(d.taints), weightText(d.weight))
	}
	for _, p := range w.promises {
		fmt.Fprintf(&b, "\n      %s: selectors %s, dependencies #%d, on_unschedule %s, rollout %s, tolerations %s", p.name, selectorText2(p.selectors), p.deps, map[bool]string{true: "delete", false: "keep"}[p.delete], p.rollout, listText(p.tolerations))
		if len(p.left) > 0 {
			fmt.Fprintf(&b, ", pool without %s", strings.Join(modelKeys(p.left), ","))
		}
	}
	for _, r := range w.requests {
		fmt.Fprintf(&b, "\n      %s: promise %s, namespace %s, pipeline %q, selectors %s, files #%d, documents #%d, tolerations %s, replicas %s, spread %v",
			r.name, w.promises[r.promise].name, r.namespace, r.pipeline, selectorText2(r.selectors), r.files, r.documents, listText(r.tolerations), replicasText(r.replicas), r.spread)
		if r.kname != "" {
			fmt.Fprintf(&b, ", named %s", r.kname)
		}
		for _, f := range modelKeys(r.groups) {
			fmt.Fprintf(&b, ", group %s (short id %s) selecting %s", f, groupShort(f), selectorText2(r.groups[f]))
		}
	}
	return b.String()
}

// ---------------------------------------------------------------------------------------------
// The configuration.

// Stores is how the configuration reaches the two stores: names, addresses and credentials. The
// runner makes it when it creates the buckets or repositories.
type Stores struct {
	Kind     string    // "bucket" or "git-http"
	Names    [2]string // bucket or repository names
	Provider string    // the provider block, with secrets "s" and "t"
	// Address spells the address of store 0 or 1; variant picks one of modelStoreVariants(Kind)
	// spellings of the same place.
	Address func(store, variant int) string
	// Observe is the body of the observe store's resource (kratix_state_store.health, path
	// "health"): a bucket or repository of its own, for a gated promise's records (gate.go).
	Observe string
}

func hclString(s string) string {
	q := strconv.Quote(s)
	return strings.NewReplacer("${", "$${", "%{", "%%{").Replace(q)
}

func hclMap(m map[string]string) string {
	var parts []string
	for _, k := range modelKeys(m) {
		parts = append(parts, fmt.Sprintf("%s = %s", hclString(k), hclString(m[k])))
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

func hclSelectors(s modelSelector) string {
	var parts []string
	for _, e := range s {
		parts = append(parts, "{ match_labels = "+hclMap(e)+" }")
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// render is the configuration of the world: resources with fixed addresses, so that Terraform
// sees edits as updates and replacements of the same objects.
func (w *modelWorld) render(c *Stores) string {
	var b strings.Builder
	b.WriteString("terraform {\n  required_providers {\n    kratix = { source = \"promise-platform/kratix\" }\n  }\n}\n\n")
	b.WriteString(c.Provider)
	for i, s := range w.stores {
		name := c.Names[s.bucket]
		if i >= len(c.Names) {
			name = fmt.Sprintf("%s-also-%d", name, i) // another resource for the same bucket
		}
		fmt.Fprintf(&b, "\nresource \"kratix_state_store\" \"s%d\" {\n  name       = %s\n  secret_ref = %s\n", i, hclString(name), hclString(s.secret))
		if sp := modelStorePathSpellings[s.path][s.spelling]; sp != "" {
			fmt.Fprintf(&b, "  path       = %s\n", hclString(sp))
		}
		if c.Kind == "bucket" {
			fmt.Fprintf(&b, "  bucket = {\n    endpoint    = %s\n    bucket_name = %s\n    insecure    = true\n  }\n", hclString(c.Address(s.bucket, s.variant)), hclString(c.Names[s.bucket]))
		} else {
			fmt.Fprintf(&b, "  git = {\n    url = %s\n", hclString(c.Address(s.bucket, s.variant)))
			if s.author {
				b.WriteString("    author = { name = \"model-test\", email = \"model-test@example.com\" }\n")
			}
			b.WriteString("  }\n")
		}
		b.WriteString("}\n")
	}
	if slices.ContainsFunc(w.promises, (*modelPromise).gated) {
		fmt.Fprintf(&b, "\nresource \"kratix_state_store\" \"health\" {\n%s  path = %q\n}\n", c.Observe, modelHealthFolder)
	}
	for _, d := range w.dests {
		if !w.rendered("d:"+d.name, d.present) {
			continue
		}
		fmt.Fprintf(&b, "\nresource \"kratix_destination\" %q {\n  name                = %q\n", d.name, d.name)
		if len(d.labels) > 0 {
			fmt.Fprintf(&b, "  labels              = %s\n", hclMap(d.labels))
		}
		fmt.Fprintf(&b, "  state_store         = kratix_state_store.s%d\n  path                = %s\n", d.store, hclString(d.path))
		if d.strict {
			b.WriteString("  strict_match_labels = true\n")
		}
		if d.noInit {
			b.WriteString("  init_workloads      = false\n")
		}
		if len(d.taints) > 0 {
			fmt.Fprintf(&b, "  taints              = %s\n", hclTaints(d.taints))
		}
		if d.weight > 0 {
			fmt.Fprintf(&b, "  weight              = %d\n", d.weight)
		}
		fmt.Fprintf(&b, "  filepath_mode       = %q\n  aggregated_filename = %q\n  cleanup             = %q\n%s}\n", d.mode, d.agg, d.cleanup, w.lifecycleHCL("d:"+d.name))
	}
	for _, p := range w.promises {
		if !w.rendered("p:"+p.name, p.present) {
			continue
		}
		fmt.Fprintf(&b, "\nresource \"kratix_promise\" %q {\n  name         = %q\n", p.name, p.name)
		if len(p.selectors) > 0 {
			fmt.Fprintf(&b, "  destination_selectors = %s\n", hclSelectors(p.selectors))
		}
		if p.delete {
			b.WriteString("  on_unschedule = \"delete\"\n")
		}
		if len(p.tolerations) > 0 {
			fmt.Fprintf(&b, "  tolerations = %s\n", hclTolerations(p.tolerations))
		}
		var pool []string
		for _, d := range w.dests {
			if p.inPool(d) || w.rendered("d:"+d.name, false) && !p.left[d.name] {
				pool = append(pool, "kratix_destination."+d.name)
			}
		}
		fmt.Fprintf(&b, "  dependencies = %s\n  destinations = [%s]\n", hclString(modelDepsCorpus[p.deps].literal), strings.Join(pool, ", "))
		if p.rollout != nil {
			b.WriteString(p.rollout.hcl())
		}
		if p.gated() {
			b.WriteString(observeHCL)
		}
		b.WriteString(p.guard.hcl())
		b.WriteString(w.lifecycleHCL("p:" + p.name))
		b.WriteString("}\n")
	}
	var outputs []string
	for _, r := range w.requests {
		if !w.rendered("r:"+r.name, r.present) {
			continue
		}
		fmt.Fprintf(&b, "\nresource \"kratix_resource_request\" %q {\n  promise   = kratix_promise.%s\n  name      = %q\n  namespace = %q\n", r.name, w.promises[r.promise].name, r.kratixName(), r.namespace)
		if r.pipeline != "" {
			fmt.Fprintf(&b, "  pipeline  = %q\n", r.pipeline)
		}
		if files := modelRequestFiles(r.kratixName(), r.files); len(files) > 0 {
			var parts []string
			for _, n := range modelKeys(files) {
				parts = append(parts, fmt.Sprintf("    %s = %s\n", hclString(n), hclString(files[n].literal)))
			}
			fmt.Fprintf(&b, "  files = {\n%s  }\n", strings.Join(parts, ""))
		}
		if docs, ok := modelRequestDocuments(r.kratixName(), r.documents); ok {
			fmt.Fprintf(&b, "  documents = %s\n", hclString(docs.literal))
		}
		if len(r.selectors) > 0 {
			fmt.Fprintf(&b, "  destination_selectors = %s\n", hclSelectors(r.selectors))
		}
		if len(r.tolerations) > 0 {
			fmt.Fprintf(&b, "  tolerations = %s\n", hclTolerations(r.tolerations))
		}
		if r.replicas > 0 {
			fmt.Fprintf(&b, "  replicas  = %d\n", r.replicas)
		}
		if r.spread {
			fmt.Fprintf(&b, "  spread    = { topology_key = %q }\n", modelZoneKey)
		}
		if len(r.groups) > 0 {
			b.WriteString(hclGroups(r))
		}
		b.WriteString(w.lifecycleHCL("r:" + r.name))
		b.WriteString("}\n")
		outputs = append(outputs, fmt.Sprintf("    %s = kratix_resource_request.%s.destinations\n", r.name, r.name))
		for _, f := range modelKeys(r.groups) {
			// A group's destination as a list of none or one, under "<request>#<folder>".
			outputs = append(outputs, fmt.Sprintf("    %s = compact([kratix_resource_request.%s.group_placements[%s].destination])\n",
				hclString(groupKey(r, f)), r.name, hclString(f)))
		}
	}
	b.WriteString(w.interruptHCL())
	fmt.Fprintf(&b, "\noutput \"choices\" {\n  value = {\n%s  }\n}\n", strings.Join(outputs, ""))
	for _, imp := range w.imports {
		addr, id, _ := strings.Cut(imp, "=")
		fmt.Fprintf(&b, "\nimport {\n  to = %s\n  id = %s\n}\n", addr, hclString(id))
	}
	return b.String()
}

// folders in one bucket.
func modelFoldersOverlap(w *modelWorld) bool {
	for i, a := range w.dests {
		for _, b := range w.dests[i+1:] {
			la, lb := w.loc(a), w.loc(b)
			if la.store == lb.store && (la.root == lb.root || under(lb.root, la.root) || under(la.root, lb.root)) {
				return true
			}
		}
	}
	return false
}
