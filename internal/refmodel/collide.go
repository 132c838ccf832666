package refmodel

// "collide" in the model-based test: two requests on one destination in filepath mode none
// write one file (the flat modes put every request's files straight into the folder, so their names
// meet there). The plan must refuse it, naming both requests and the file, and write nothing;
// then the step is reverted and applied as usual.
//
// The step arranges what it needs instead of waiting for the random walk to bring two requests
// onto one such destination (which it hardly ever does): it takes a destination in mode none
// (switching one to none when there is none), keeps the requests already there, and adds new
// ones whose selectors leave that destination as their only candidate. Then either both write
// shared-settings.yaml (`files`), or, as in issue 19's finding 2, two requests of different
// promises (or namespaces) with one name both write <name>.yaml (`documents`).

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// modelCollideLabel is the label a destination gets for the step when none of its own labels
// singles it out: the new requests select it.
const modelCollideLabel = "collide"

// collidePin is how a new request of a promise lands on the destination: its selector, and
// whether the destination needs modelCollideLabel for it.
type collidePin struct {
	promise  int
	selector map[string]string
	label    bool
}

// collidePins are the ways a new request can be made to have d as its only candidate, one per
// promise at most (combining selectors, and one destination per request: a new request goes to one of its candidates).
func (w *modelWorld) collidePins(d *modelDest) []collidePin {
	if e := strongest(nil, d); e == effNoSchedule || e == effNoExecute {
		return nil // a new request (no toleration) is never placed on d (taints.go)
	}
	labelled := *d
	labelled.labels = map[string]string{modelCollideLabel: d.name}
	for k, v := range d.labels {
		labelled.labels[k] = v
	}
	// The label may be added only where it changes no promise's choice of d.
	labelOK := true
	for _, p := range w.promises {
		if p.present && p.inPool(d) && selects(p.selectors.merged(), d) != selects(p.selectors.merged(), &labelled) {
			labelOK = false
		}
	}
	var out []collidePin
	for i, p := range w.promises {
		if !p.present || !p.inPool(d) || p.gated() {
			continue
		}
		found := false
		for _, k := range modelKeys(d.labels) {
			sel := map[string]string{k: d.labels[k]}
			probe := &modelRequest{promise: i, selectors: modelSelector{sel}}
			if slices.Equal(w.candidates(probe), []string{d.name}) {
				out = append(out, collidePin{promise: i, selector: sel})
				found = true
				break
			}
		}
		if !found && labelOK && selects(p.selectors.merged(), &labelled) {
			out = append(out, collidePin{promise: i, selector: map[string]string{modelCollideLabel: d.name}, label: true})
		}
	}
	return out
}

// collideOp builds the "collide" step. requests are the present ones.
func (m *Model) collideOp(rng *rand.Rand, dests []*modelDest, requests []*modelRequest) (Op, bool) {
	w := m.w
	saved := w.clone()
	var nones []*modelDest
	for _, d := range dests {
		if d.mode == modeNone {
			nones = append(nones, d)
		}
	}
	switched := map[*modelDest]string{}
	if len(nones) == 0 && slices.Contains(w.modes, modeNone) {
		// No destination in mode none: one becomes one in the same step (a replacement the plan
		// must see through).
		for _, d := range dests {
			switched[d] = d.mode
			nones = append(nones, d)
		}
	}
	for _, i := range rng.Perm(len(nones)) {
		d := nones[i]
		before, switching := switched[d]
		d.mode = modeNone
		if op, ok := m.collideOn(rng, d, requests); ok {
			if switching {
				op.Desc = fmt.Sprintf("%s filepath_mode %s -> none; %s", d.name, before, op.Desc)
			}
			op.Revert = func() { *w = *saved }
			return op, true
		}
		if switching {
			d.mode = before
		}
	}
	return Op{}, false
}

// collideOn puts two requests on d, which is in mode none, writing one file. It changes the
// world only when it succeeds; the caller sets revert.
func (m *Model) collideOn(rng *rand.Rand, d *modelDest, requests []*modelRequest) (Op, bool) {
	w := m.w
	var on []*modelRequest
	for _, r := range requests {
		if slices.Contains(m.choice[r.name], d.name) {
			on = append(on, r)
		}
	}
	pins := w.collidePins(d)
	// How many of the two are requests already on d; the others are new.
	var counts []int
	for k := 0; k <= min(len(on), 2); k++ {
		if k == 2 || len(pins) > 0 {
			counts = append(counts, k)
		}
	}
	if len(counts) == 0 {
		return Op{}, false
	}
	k := pick(rng, counts)
	rng.Shuffle(len(on), func(i, j int) { on[i], on[j] = on[j], on[i] })
	pair := slices.Clone(on[:k])
	fresh := map[*modelRequest]bool{}
	labelled := false
	var added []string
	for j := k; j < 2; j++ {
		pin := pick(rng, pins)
		q := &modelRequest{name: fmt.Sprintf("c%d", j), namespace: "default", present: true, promise: pin.promise,
			selectors: modelSelector{pin.selector}}
		if pin.label && !labelled {
			d.labels[modelCollideLabel] = d.name
			labelled = true
		}
		w.requests = append(w.requests, q)
		pair = append(pair, q)
		fresh[q] = true
		added = append(added, fmt.Sprintf("new request %s of promise %s selecting %s", q.name, w.promises[q.promise].name, labelText(pin.selector)))
	}
	a, b := pair[0], pair[1]
	var file string
	if fresh[b] && rng.IntN(2) == 0 {
		// One name (finding 2): b is new, so its name is free to choose; it differs from a by
		// promise or, failing that, by namespace, so that the two are two requests.
		if fresh[a] {
			a.kname = "team-a"
		}
		b.kname = a.kratixName()
		if b.promise == a.promise && b.namespace == a.namespace {
			b.namespace = map[string]string{"default": "team-a", "team-a": "default"}[a.namespace]
		}
		for _, r := range pair {
			if fresh[r] {
				r.files = modelRequestNoFiles
			}
			if r.documents == 0 {
				r.documents = 1 + rng.IntN(modelRequestDocumentsCount-1)
			}
		}
		file = a.kratixName() + ".yaml"
	} else {
		a.files, b.files = modelRequestCollides, modelRequestCollides
		a.groups, b.groups = nil, nil // their folders are gone with their files
		file = "shared-settings.yaml"
	}
	p := inFolder(w.root(d), file)
	owner := func(r *modelRequest) string {
		return fmt.Sprintf("request %s/%s/%s", w.promises[r.promise].name, r.namespace, r.kratixName())
	}
	desc := fmt.Sprintf("%s and %s both write %s on %s (none)", owner(a), owner(b), p, d.name)
	if len(added) > 0 {
		desc += ": " + strings.Join(added, ", ")
		if labelled {
			desc += fmt.Sprintf(", %s labelled %s=%s", d.name, modelCollideLabel, d.name)
		}
	}
	return Op{
		Desc:        desc + "; refused, then reverted",
		ExpectError: "File Claimed By Another Owner",
		ExpectAlso:  []string{owner(a), owner(b), fmt.Sprintf("%q", p)},
	}, true
}
