package refmodel

// The guard in the model-based test ("guard"): a promise gets a guard that protects one of the
// destinations it holds files on, by that destination's labels, and the step then takes files
// from it: a relabel that unschedules the promise there (on_unschedule = "delete"), or a move of
// the destination to the other bucket. The plan must refuse it, naming the acknowledgement, and
// write nothing; the runner then sets that acknowledgement and the same step must apply as the
// model says. The guard is gone from the configuration after the step (a left acknowledgement
// lets nothing else through, which a random walk would trip on).

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"strings"
)

// modelGuard is a promise's `guard`: protect by these match_labels, with an acknowledgement once
// the runner has read it from the refusal.
type modelGuard struct {
	protect     map[string]string
	acknowledge string
}

func (g *modelGuard) clone() *modelGuard {
	if g == nil {
		return nil
	}
	c := *g
	c.protect = maps.Clone(g.protect)
	return &c
}

func (g *modelGuard) hcl() string {
	if g == nil {
		return ""
	}
	s := "  guard = { protect = [{ match_labels = " + hclMap(g.protect) + " }]"
	if g.acknowledge != "" {
		s += ", acknowledge = " + hclString(g.acknowledge)
	}
	return s + " }\n"
}

// ackPattern finds the acknowledgement a refusal prints.
var ackPattern = regexp.MustCompile(`acknowledge = "(ack-[0-9a-f]+)"`)

// guardOp builds the "guard" step, if some promise holds live files on a destination.
func (m *Model) guardOp(rng *rand.Rand) (Op, bool) {
	w := m.w
	if len(m.InFlight()) > 0 {
		return Op{}, false
	}
	type target struct {
		p *modelPromise
		d *modelDest
	}
	var targets []target
	for _, p := range w.promises {
		if !p.present || p.rollout != nil || p.guard != nil {
			continue
		}
		for _, d := range presentDests(w) {
			if p.inPool(d) && selects(p.selectors.merged(), d) && m.holdsLive("p:"+p.name, d) {
				targets = append(targets, target{p, d})
			}
		}
	}
	if len(targets) == 0 {
		return Op{}, false
	}
	tg := pick(rng, targets)
	p, d := tg.p, tg.d
	p.guard = &modelGuard{protect: maps.Clone(d.labels)}
	op := Op{ExpectError: "Change Refused by the Guard", AckGuard: p.name}
	if len(p.selectors.merged()) > 0 && rng.IntN(4) > 0 {
		// A relabel that unschedules the promise there; on_unschedule = "delete" (set in the same
		// step when it was "keep") makes that take its files.
		before, wasDelete := d.labels, p.delete
		for i := 0; i < 16 && selects(p.selectors.merged(), d); i++ {
			d.labels = randomLabels(rng)
		}
		if !selects(p.selectors.merged(), d) {
			p.delete = true
			op.Desc = fmt.Sprintf("promise %s guarded (protect %s), on_unschedule %s -> delete; %s labels %s -> %s takes its files there: refused, then acknowledged",
				p.name, labelText(before), map[bool]string{true: "delete", false: "keep"}[wasDelete], d.name, labelText(before), labelText(d.labels))
			return op, true
		}
		d.labels = before
	}
	from := d.store
	var others []int
	for i, s := range w.stores {
		if s.bucket != w.stores[from].bucket {
			others = append(others, i)
		}
	}
	if len(others) == 0 {
		p.guard = nil
		return Op{}, false
	}
	d.store = pick(rng, others)
	op.Desc = fmt.Sprintf("promise %s guarded (protect %s); %s (%s, cleanup %s) moves from store %d to store %d: refused, then acknowledged",
		p.name, labelText(d.labels), d.name, d.mode, d.cleanup, from, d.store)
	return op, true
}

// holdsLive: the owner's entry in d's folder is live and has files.
func (m *Model) holdsLive(owner string, d *modelDest) bool {
	for _, e := range m.ledger[m.w.loc(d)] {
		if e.owner == owner && e.dest == d.name && e.status == stLive && (len(e.files) > 0 || e.folder != "" || e.aggPath != "") {
			return true
		}
	}
	return false
}

// acknowledgeGuard reads the acknowledgement from a refused apply's output and sets it.
func (w *modelWorld) acknowledgeGuard(promise, out string) error {
	p := w.promise(promise)
	match := ackPattern.FindStringSubmatch(out)
	if p == nil || p.guard == nil || match == nil {
		return fmt.Errorf("no acknowledgement for promise %s in the refusal:\n%s", promise, tail(strings.TrimSpace(out), 40))
	}
	p.guard.acknowledge = match[1]
	return nil
}

// tail is the last lines of s, after "..." when some are left out.
func tail(s string, lines int) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(all) > lines {
		all = append([]string{"..."}, all[len(all)-lines:]...)
	}
	return strings.Join(all, "\n")
}
