package refmodel

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Faults: a store goes down during a random apply (the runner's model_fault_test.go, in
// internal/provider, says what it checks). The model draws which step and which store, and says
// which files the step must not lose: those it holds before the step and after it, with the same
// bytes in the same store.

// modelFaultOneIn: one step in this many (on average) runs with a store down.
const modelFaultOneIn = 3

// drawFault says which store is down during this step's apply, or -1.
func drawFault(rng *rand.Rand, allowed bool) int {
	if rng.IntN(modelFaultOneIn) != 0 || !allowed {
		return -1
	}
	return rng.IntN(2)
}

// CertainFiles is every file the model says must be in each store now, with its bytes.
func (m *Model) CertainFiles() ([2]map[string][]byte, error) {
	out := [2]map[string][]byte{{}, {}}
	for _, root := range modelKeys(m.roots) {
		for store := range 2 {
			fe, err := m.expect(modelLoc{store, root})
			if err != nil {
				return out, err
			}
			for p, b := range fe.certain {
				out[store][p] = b
			}
		}
	}
	return out, nil
}

// keptFiles are the files the model holds before and after the step with the same bytes, and
// which the store holds with those bytes now.
func keptFiles(before, after, now [2]map[string][]byte) [2]map[string][]byte {
	out := [2]map[string][]byte{{}, {}}
	for store := range 2 {
		for p, b := range before[store] {
			if a, ok := after[store][p]; ok && bytes.Equal(a, b) && bytes.Equal(now[store][p], b) {
				out[store][p] = b
			}
		}
	}
	return out
}

// rolloutSignature names, for every promise with a rollout, what would start or change one: its
// dependencies, presence and rollout block. A step that changes it gets no fault (see above).
func rolloutSignature(w *modelWorld) string {
	var b strings.Builder
	for _, p := range w.promises {
		if p.rollout != nil {
			fmt.Fprintf(&b, "%s %v %d %s\n", p.name, p.present, p.deps, p.rollout)
		}
	}
	return b.String()
}

// FaultKept are the files a step with a store down must not lose. certainBefore and certainAfter
// are CertainFiles before the step and after it settled; failedBefore and failedAfter what the
// stores held before the failed apply and after it; incs the destinations' incarnations before
// the step (Incarnations). kept must survive the failed apply and not be deleted by it;
// recovered, written by the failed apply as the model wants them, must not be deleted by the
// apply after it.
func (m *Model) FaultKept(incs map[string]int, certainBefore, certainAfter, failedBefore, failedAfter [2]map[string][]byte) (kept, recovered [2]map[string][]byte) {
	kept = keptFiles(certainBefore, certainAfter, failedBefore)
	recovered = keptFiles(failedAfter, certainAfter, failedAfter)
	// A destination replaced with cleanup = "all" empties its folder, and the promises and
	// requests on it write their files again in the same apply: nothing there is kept.
	for _, d := range presentDests(m.w) {
		if d.cleanup != "all" || incs[d.name] == m.incs[d.name] {
			continue
		}
		loc := m.w.loc(d)
		for _, k := range []map[string][]byte{kept[loc.store], recovered[loc.store]} {
			for p := range k {
				if under(loc.root, p) {
					delete(k, p)
				}
			}
		}
	}
	return kept, recovered
}

// Holdings are the plain files each present request holds on each of its destinations, by
// request and destination (an aggregatedYAML destination holds none: its documents are in the
// aggregate).
type Holdings map[string]map[string]holding

type holding struct {
	store int
	files map[string][]byte
}

// RequestHoldings is what each present request holds now; the runner takes it before a step so
// that DrainProblems can tell where a request that leaves a destination was.
func (m *Model) RequestHoldings() Holdings {
	out := Holdings{}
	for _, r := range m.w.requests {
		if !r.present {
			continue
		}
		keys := []string{r.name}
		for _, f := range modelKeys(r.groups) {
			keys = append(keys, groupKey(r, f))
		}
		for _, key := range keys {
			for _, dest := range m.choice[key] {
				if h, ok := m.holding(key, dest); ok {
					if out[key] == nil {
						out[key] = map[string]holding{}
					}
					out[key][dest] = h
				}
			}
		}
	}
	return out
}

func (m *Model) holding(request, dest string) (holding, bool) {
	for loc, entries := range m.ledger {
		for _, e := range entries {
			if e.owner == "r:"+request && e.dest == dest && e.status == stLive {
				return holding{store: loc.store, files: e.files}, true
			}
		}
	}
	return holding{}, false
}

// DrainProblems checks make before break for the requests the step made leave a destination of
// the pool (drained, or past its replicas), in what the stores held after the step's failed
// apply: the removals run only once every destination the request stays on or goes to is
// written, so either each destination it left still holds its files whole (the bytes it held
// before the step), or each destination it is on now holds them whole (the bytes the model wants
// there now).
func (m *Model) DrainProblems(before Holdings, failed [2]map[string][]byte) []string {
	missing := func(h holding) []string {
		var out []string
		for _, p := range modelKeys(h.files) {
			if got, ok := failed[h.store][p]; !ok || !bytes.Equal(got, h.files[p]) {
				out = append(out, fmt.Sprintf("store %d: %s", h.store, p))
			}
		}
		return out
	}
	leaving := map[string][]leftMove{}
	var requests []string
	for _, l := range m.left {
		if leaving[l.request] == nil {
			requests = append(requests, l.request)
		}
		leaving[l.request] = append(leaving[l.request], l)
	}
	var out []string
	for _, r := range requests {
		var gone []string
		for _, l := range leaving[r] {
			if was, ok := before[r][l.from]; ok {
				if miss := missing(was); len(miss) > 0 {
					gone = append(gone, fmt.Sprintf("on %s (%s) %s is gone or changed", l.from, l.text(), strings.Join(miss, ", ")))
				}
			}
		}
		if len(gone) == 0 {
			continue
		}
		var unwritten []string
		for _, dest := range m.choice[r] {
			if now, ok := m.holding(r, dest); ok {
				if miss := missing(now); len(miss) > 0 {
					unwritten = append(unwritten, fmt.Sprintf("on %s %s is not written", dest, strings.Join(miss, ", ")))
				}
			}
		}
		if len(unwritten) > 0 {
			out = append(out, fmt.Sprintf("request %s left destinations before the others were written (make before break): %s; %s",
				r, strings.Join(gone, "; "), strings.Join(unwritten, "; ")))
		}
	}
	return out
}

// text says why the request left the destination.
func (l leftMove) text() string {
	switch {
	case !l.drained:
		return "past its replicas"
	case l.to == "":
		return "drained"
	}
	return "drained to " + l.to
}
