package provider

// TestAccModel_*: "the apply writes exactly what the plan promised", against real servers. Per
// seed, a world (internal/refmodel, world.go) is applied with the real Terraform CLI, then a sequence of
// random operations, each followed by `terraform apply`; after every apply each destination
// folder of both stores, read back with an independent client (plain minio-go, the git CLI),
// must hold exactly what the reference model (internal/refmodel) says, nothing may be outside the
// destination folders (but aggregate parts under <store path>/.kratix-aggregates/), and the next
// plan must be empty, except while the model says a promise's rollout is in flight
// (refmodel/rollout.go): then it must be non-empty and update nothing but those promises.
// Some operations expect more: "quiet" ones (cosmetic store edits, a destination given another
// store resource for the same place) must replace and write nothing; "overlap" must be refused
// at plan with nothing written, and so must "collide" (two requests writing one file in mode
// none, refmodel/collide.go), whose refusal must name both requests and the file; "part" must
// get the aggregate part edited by hand back, byte for byte; "replace" runs
// `terraform apply -replace=...`. In a world with the gated promise (refmodel/gate.go) every
// command is served by an in-process provider reading the model's clock, and "health" writes
// HealthRecords into an observe store of the seed's own (model_gate_test.go), which must hold
// only them after every apply; the model says which wave the gate lets go, holds or rolls back.
//
// This file and model_fault_test.go are the runner: servers, the CLI and the independent clients.
// The model, its operations and its unit tests (TestModel*, no server) are package refmodel.
//
// Knobs (environment):
//   KRATIX_MODEL_SEED=N       run only seed N (or -seed=N on the go test command line)
//   KRATIX_MODEL_SEEDS=N      number of seeds (default 20), from KRATIX_MODEL_FIRST_SEED (default 1)
//   KRATIX_MODEL_STEPS=N      operations per seed after the first apply (default 10)
//   KRATIX_MODEL_OPS=a,b      only these operations (names in refmodel.OpNames; unset: all but
//                             refmodel.DefaultOff, lifecycle operations that fail on open findings)
//   KRATIX_MODEL_MODES=a,b    only these filepath modes (default all four)
//   KRATIX_MODEL_PARALLEL=N   seeds run at once (default 3)
//   KRATIX_MODEL_FAULTS=0     no store goes down during an apply (model_fault_test.go)

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/refmodel"
)

var modelSeedFlag = flag.Int64("seed", 0, "TestAccModel_*: run only this seed (same as KRATIX_MODEL_SEED)")

func TestAccModel_bucket(t *testing.T)  { runModelTest(t, "bucket") }
func TestAccModel_gitHTTP(t *testing.T) { runModelTest(t, "git-http") }

type modelSettings struct {
	seeds    []int64
	steps    int
	ops      []string
	modes    []string
	parallel int
	faults   bool // KRATIX_MODEL_FAULTS=0 turns off the store failures of model_fault_test.go
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a number", name, v)
	}
	return n
}

func modelSettingsFromEnv(t *testing.T) modelSettings {
	t.Helper()
	s := modelSettings{steps: envInt(t, "KRATIX_MODEL_STEPS", 10), parallel: max(1, envInt(t, "KRATIX_MODEL_PARALLEL", 3)), ops: refmodel.OpNames,
		faults: envInt(t, "KRATIX_MODEL_FAULTS", 1) != 0}
	seed := *modelSeedFlag
	if v := os.Getenv("KRATIX_MODEL_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("KRATIX_MODEL_SEED=%q: want a number", v)
		}
		seed = n
	}
	if seed != 0 {
		s.seeds = []int64{seed}
	} else {
		first := int64(envInt(t, "KRATIX_MODEL_FIRST_SEED", 1))
		for i := range envInt(t, "KRATIX_MODEL_SEEDS", 20) {
			s.seeds = append(s.seeds, first+int64(i))
		}
	}
	s.ops = envList(t, "KRATIX_MODEL_OPS", refmodel.OpNames)
	if os.Getenv("KRATIX_MODEL_OPS") == "" {
		s.ops = refmodel.DefaultOps() // not the lifecycle operations that fail on open findings (refmodel.DefaultOff)
	}
	s.modes = envList(t, "KRATIX_MODEL_MODES", refmodel.Modes)
	return s
}

// envList reads a comma-separated subset of known; unset means all of them.
func envList(t *testing.T, name string, known []string) []string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return known
	}
	var out []string
	for _, x := range strings.Split(v, ",") {
		x = strings.TrimSpace(x)
		if !slices.Contains(known, x) {
			t.Fatalf("%s: unknown value %q; known: %s", name, x, strings.Join(known, ","))
		}
		out = append(out, x)
	}
	return out
}

func runModelTest(t *testing.T, kind string) {
	t.Parallel()
	requireAcceptance(t)
	s := modelSettingsFromEnv(t)
	start := time.Now()
	ran := &modelTally{steps: map[string]int{}}
	failed := runSeeds(t, s.seeds, s.parallel, func(t *testing.T, seed int64) { runModelSeed(t, kind, seed, s, ran) })
	t.Logf("%s: %d seeds x %d steps (operations %s; modes %s) in %s", kind, len(s.seeds), s.steps, strings.Join(s.ops, ","), strings.Join(s.modes, ","), time.Since(start).Round(time.Second))
	t.Logf("%s: steps that passed, by operation: %s", kind, ran.text())
	t.Logf("%s: collide steps refused as the model says: %d", kind, ran.steps["collide"])
	if slices.Contains(s.ops, "collide") && len(s.seeds)*s.steps >= 100 && ran.steps["collide"] == 0 && len(failed) == 0 {
		// Drawn in most worlds (TestModelCollideOp): 100 steps without one mean it is not reached.
		t.Errorf("%s: no collide step ran in %d steps", kind, len(s.seeds)*s.steps)
	}
	if len(failed) > 0 {
		t.Errorf("MODEL FAILURES %s: seeds %v of %d; reproduce one with KRATIX_MODEL_SEED=<seed> KRATIX_MODEL_STEPS=%d%s TF_ACC=1 go test ./internal/provider -run '^%s$' -v",
			kind, failed, len(s.seeds), s.steps, opsEnv(s), t.Name())
	}
}

// runSeeds plays each seed in a subtest "seed=N", parallel at a time, and returns the seeds that
// failed, sorted.
func runSeeds(t *testing.T, seeds []int64, parallel int, play func(t *testing.T, seed int64)) []int64 {
	var (
		mu     sync.Mutex
		failed []int64
		wg     sync.WaitGroup
	)
	jobs := make(chan int64)
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := range jobs {
				// t.Run may be called from several goroutines: the seeds run concurrently,
				// bounded by the test's own knob rather than by go test's -parallel.
				if !t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { play(t, seed) }) {
					mu.Lock()
					failed = append(failed, seed)
					mu.Unlock()
				}
			}
		}()
	}
	for _, seed := range seeds {
		jobs <- seed
	}
	close(jobs)
	wg.Wait()
	slices.Sort(failed)
	return failed
}

// modelTally counts the steps that passed, by operation, over the seeds of one run.
type modelTally struct {
	mu    sync.Mutex
	steps map[string]int
}

func (c *modelTally) add(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.steps[op]++
}

func (c *modelTally) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for _, op := range tfvalue.SortedKeys(c.steps) {
		parts = append(parts, fmt.Sprintf("%s %d", op, c.steps[op]))
	}
	return strings.Join(parts, ", ")
}

// opsEnv is the part of a reproduction command that restricts operations and modes, or turns
// the store faults off.
func opsEnv(s modelSettings) string {
	out := ""
	if !slices.Equal(s.ops, refmodel.DefaultOps()) {
		out += " KRATIX_MODEL_OPS=" + strings.Join(s.ops, ",")
	}
	if !slices.Equal(s.modes, refmodel.Modes) {
		out += " KRATIX_MODEL_MODES=" + strings.Join(s.modes, ",")
	}
	if !s.faults {
		out += " KRATIX_MODEL_FAULTS=0" // the faults change the random draws: a seed replays only with the same setting
	}
	return out
}

// runModelSeed plays one seed: the first apply, then s.steps operations.
func runModelSeed(t *testing.T, kind string, seed int64, s modelSettings, ran *modelTally) {
	conn := newModelConn(t, kind)
	m := refmodel.New(seed, kind, s.modes)
	c := newCLI(t, nil)
	var obs *modelObserve
	if m.Gated() {
		// A gated promise: the provider reads the model's clock, and its records are in an
		// observe store of their own (refmodel/gate.go).
		c.clock = &fakeClock{at: m.Now()}
		obs = newModelObserve(t, conn)
	}
	var history []string
	fail := func(step int, format string, args ...any) {
		t.Helper()
		t.Fatalf("FAIL seed=%d kind=%s step=%d: %s\n\noperations so far:\n%s\n\nreproduce: KRATIX_MODEL_SEED=%d KRATIX_MODEL_STEPS=%d%s TF_ACC=1 go test ./internal/provider -run '^%s$' -v",
			seed, kind, step, fmt.Sprintf(format, args...), strings.Join(history, "\n"), seed, step, opsEnv(s), strings.Split(t.Name(), "/")[0])
	}
	// What the stores hold before the first apply (a git repository's README): it must stay.
	initial := conn.snapshot(t)
	writeConfig := func() string {
		config := m.Render(&conn.Stores)
		if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		return config
	}
	// settleCheck settles the model after an apply that is not the step's last (an interrupted
	// one, a saved plan's) and, with folders, checks what every folder holds.
	settleCheck := func(step int, phase, out string, folders bool) {
		t.Helper()
		placed, err := modelPlacements(c)
		if err != nil {
			fail(step, "%s: reading the requests' destinations: %v", phase, err)
		}
		report := m.SettleAll(placed)
		for i, p := range report {
			report[i] = "scheduling: " + p
		}
		if folders {
			problems, err := m.FolderProblems(initial, conn.snapshot(t), conn.Names)
			if err != nil {
				fail(step, "%v", err)
			}
			report = append(report, problems...)
		}
		if len(report) > 0 {
			fail(step, "the stores do not hold what the model says %s\n\n%s\n\nwhat the apply did:\n%s", phase, strings.Join(report, "\n\n"), tail(out, 30))
		}
	}
	for step := 0; step <= s.steps; step++ {
		wasFlying, rolloutsBefore := len(m.InFlight()) > 0, m.RolloutSignature()
		certainBefore, err := m.CertainFiles()
		if err != nil {
			fail(step, "%v", err)
		}
		holdings := m.RequestHoldings()
		op := refmodel.Op{Name: "create", Desc: m.Describe()}
		if step > 0 {
			op = m.NextOp(s.ops)
		}
		history = append(history, fmt.Sprintf("  %2d. %s: %s", step, op.Name, op.Desc))
		stepStart := time.Now()
		if c.clock != nil {
			c.clock.set(m.Now())
		}
		for _, r := range op.Records {
			obs.write(t, r)
		}
		if op.ExpectError != "" {
			// A configuration the plan must refuse: the apply fails and writes nothing.
			before := conn.fingerprint(t)
			config := writeConfig()
			out, err := c.run("apply", "-auto-approve", "-input=false")
			if err == nil || !strings.Contains(out, op.ExpectError) {
				fail(step, "terraform apply should fail with %q (err %v):\n%s\n\nconfiguration:\n%s", op.ExpectError, err, tail(out, 60), config)
			}
			for _, want := range op.ExpectAlso {
				if !strings.Contains(strings.ToLower(flat(out)), strings.ToLower(want)) {
					fail(step, "the refusal %q does not say %s:\n%s\n\nconfiguration:\n%s", op.ExpectError, want, tail(out, 60), config)
				}
			}
			if after := conn.fingerprint(t); !maps.Equal(after, before) {
				fail(step, "the refused apply wrote to the stores:\n%s\n%s", conn.writes(before, after), tail(out, 40))
			}
			if op.AckGuard != "" {
				if err := m.AcknowledgeGuard(op.AckGuard, out); err != nil {
					fail(step, "%v", err)
				}
			} else {
				op.Revert()
			}
		}
		var part *modelPartExpect
		if op.Part != nil {
			var err error
			if part, err = conn.editPart(t, c, *op.Part); err != nil {
				fail(step, "%v", err)
			}
			op.Desc += ": " + part.desc
			history[len(history)-1] += ": " + part.desc
		}
		for _, h := range op.Hand {
			conn.hand(t, h)
		}
		for _, addr := range op.StateRm {
			if out, err := c.run("state", "rm", addr); err != nil {
				fail(step, "terraform state rm %s: %v\n%s", addr, err, tail(out, 20))
			}
		}
		config := writeConfig()
		m.ImportsRendered() // rendered once: the next configuration has no import block
		before, expected, incs, flying := conn.fingerprint(t), m.Digest(), m.Incarnations(), m.InFlight()
		args := []string{"apply", "-auto-approve", "-input=false"}
		for _, r := range op.Replace {
			args = append(args, "-replace="+r)
		}
		// One step in three runs its apply with a store down first (model_fault_test.go; the model
		// draws which, refmodel/fault.go); the apply below then recovers from it. What the model
		// holds after the step is known once the step is settled, so the checks of kept files
		// wait until then.
		down := m.DrawFault(s.faults && !op.Quiet && !op.Interrupt && len(op.SavedPlan) == 0 && op.TargetDestroy == "" && !wasFlying && len(flying) == 0 && m.RolloutSignature() == rolloutsBefore)
		var fault modelFault
		if down >= 0 {
			history[len(history)-1] += fmt.Sprintf(" [store %d down during the first apply]", down)
			fault.before, fault.mark = conn.snapshot(t), conn.wireMark(t)
			planArgs := append([]string{"plan", "-input=false", "-out=fault.tfplan"}, args[3:]...)
			if out, err := c.run(planArgs...); err != nil {
				fail(step, "terraform plan (before store %d goes down): %v\n%s\n\nconfiguration:\n%s", down, err, tail(out, 60), config)
			}
			conn.down(t, down)
			fout, ferr := c.run("apply", "-input=false", "fault.tfplan")
			conn.up(t, down)
			fault.out, fault.failed = fout, ferr != nil
			fault.snap, fault.recoverMark = conn.snapshot(t), conn.wireMark(t)
			if problems := conn.downUnchanged(down, before, conn.fingerprint(t)); len(problems) > 0 {
				fail(step, "%s\n\nwhat the apply did:\n%s", strings.Join(problems, "\n"), tail(fout, 60))
			}
		}
		var out string
		switch {
		case op.TargetDestroy != "":
			out, err = c.run("destroy", "-auto-approve", "-input=false", "-target="+op.TargetDestroy)
			m.EndTargetDestroy()
			config = writeConfig()
			if err == nil {
				// The configuration without what it destroyed, applied: the outputs the model
				// reads are not updated by a destroy, and nothing else may change.
				var more string
				more, err = c.run("apply", "-auto-approve", "-input=false")
				out += more
			}
		case op.Interrupt || len(op.SavedPlan) > 0:
			// Through a saved plan, so that what the plan shows is known: the apply may delete
			// no file it did not show (refmodel/lifecycle.go).
			var unshown []string
			out, unshown, err = savedPlanApply(t, c, conn, args[3:], op.SavedPlan)
			if len(unshown) > 0 {
				fail(step, "%s: the apply deleted files its plan did not show:\n  %s\n\nwhat the apply did:\n%s", op.Name, strings.Join(unshown, "\n  "), tail(out, 60))
			}
			if op.Interrupt {
				if err == nil || !strings.Contains(flat(out), refmodel.InterruptError) {
					fail(step, "the apply should fail with %q (err %v):\n%s\n\nconfiguration:\n%s", refmodel.InterruptError, err, tail(out, 60), config)
				}
				// Everything but the failing resource applied: the folders hold what the model
				// says already.
				m.EndInterrupt()
				settleCheck(step, "after the interrupted apply", out, true)
			} else {
				if err != nil {
					fail(step, "applying the saved plan: %v\n%s\n\nconfiguration:\n%s", err, tail(out, 60), config)
				}
				// Another writer changed the store after the plan: what the apply does with it
				// is the next apply's to repair; the model's folders are checked after it.
				settleCheck(step, "after the saved plan's apply", out, false)
			}
			config = writeConfig()
			before = conn.fingerprint(t)
			out, unshown, err = savedPlanApply(t, c, conn, nil, nil)
			if len(unshown) > 0 {
				fail(step, "%s: the apply after it deleted files its plan did not show:\n  %s\n\nwhat the apply did:\n%s", op.Name, strings.Join(unshown, "\n  "), tail(out, 60))
			}
		default:
			out, err = c.run(args...)
		}
		if err != nil {
			fail(step, "terraform %s: %v\n%s\n\nconfiguration:\n%s", args[0], err, tail(out, 60), config)
		}
		applied := time.Since(stepStart)
		after := conn.fingerprint(t)
		if op.AckGuard != "" {
			m.GuardApplied(op.AckGuard) // acknowledged and applied: the next configuration has no guard
		}
		if op.Quiet {
			// (A rollout in flight goes on with its next wave whatever the step changes.)
			// The registry may change (a reweight rewrites the destination's record, an import
			// takes the object's owner record over): the layout may not.
			if len(flying) == 0 && conn.wroteLayout(before, after) {
				fail(step, "%s must write nothing, but the stores changed:\n%s\n\nwhat the apply did:\n%s", op.Name, conn.writes(before, after), planSummary(out))
			}
			if added, destroyed, ok := applyCounts(out); !ok || added != 0 || destroyed != 0 {
				fail(step, "%s must replace nothing, but the apply added %d and destroyed %d resources:\n%s", op.Name, added, destroyed, planSummary(out))
			}
		}
		placed, err := modelPlacements(c)
		if err != nil {
			fail(step, "reading the requests' destinations: %v", err)
		}
		problems := m.SettleAll(placed)
		if down >= 0 {
			certainAfter, err := m.CertainFiles()
			if err != nil {
				fail(step, "%v", err)
			}
			kept, recovered := m.FaultKept(incs, certainBefore, certainAfter, fault.before, fault.snap)
			if p := append(conn.faultProblems(t, fault, kept, recovered), m.DrainProblems(holdings, fault.snap)...); len(p) > 0 {
				fail(step, "with store %d down during the first apply (which %s), files the model keeps were lost:\n  %s\n\nwhat the failed apply did:\n%s\n\nwhat the apply after it did:\n%s",
					down, map[bool]string{true: "failed", false: "succeeded"}[fault.failed], strings.Join(p, "\n  "), tail(fault.out, 40), planSummary(out))
			}
		}
		if len(op.Hand) == 0 && op.Part == nil && len(op.Replace) == 0 && !op.Interrupt && len(op.SavedPlan) == 0 && maps.Equal(incs, m.Incarnations()) && m.Digest() == expected && conn.wroteLayout(before, after) {
			// Nothing re-created, no hand edit to repair, and every folder must hold what it held:
			// no object may be written or deleted, no commit made (a no-op apply writes nothing).
			fail(step, "%s changes nothing the stores must hold, but the apply wrote to them:\n%s\n\nwhat the apply did:\n%s", op.Name, conn.writes(before, after), planSummary(out))
		}
		snap := conn.snapshot(t)
		var report []string
		for _, p := range problems {
			report = append(report, "scheduling: "+p)
		}
		folders, err := m.FolderProblems(initial, snap, conn.Names)
		if err != nil {
			fail(step, "%v", err)
		}
		report = append(report, folders...)
		report = append(report, conn.commitProblems(before, after)...)
		if obs != nil {
			report = append(report, obs.problems(t)...)
			for _, v := range m.GateVerdicts() {
				ran.add("(gate " + v + ")")
			}
		}
		if part != nil {
			if got, ok := snap[part.store][part.path]; !ok || !bytes.Equal(got, part.content) {
				report = append(report, fmt.Sprintf("%s (store %d), %s, is not back as it was (present %v):\n    want %q\n    got  %q",
					part.path, part.store, part.desc, ok, part.content, got))
			}
		}
		if len(report) > 0 {
			fail(step, "the stores do not hold what the model says after %s\n\n%s\n\nwhat the apply planned:\n%s", op.Name, strings.Join(report, "\n\n"), planSummary(out))
		}
		out, err = c.run("plan", "-detailed-exitcode", "-input=false", "-refresh=true")
		if problem := planProblem(out, err, m.InFlight()); problem != "" {
			fail(step, "%s\n%s\n\n%s", problem, m.RolloutText(), tail(out, 80))
		}
		faultNote := ""
		if down >= 0 {
			faultNote = fmt.Sprintf(" [store %d down during a first apply, which %s]", down, map[bool]string{true: "failed", false: "succeeded"}[fault.failed])
		}
		ran.add(op.Name)
		if moves := m.DrainedMoves(); len(moves) > 0 {
			faultNote += fmt.Sprintf(" [drained: %s]", strings.Join(moves, ", "))
			for range moves {
				ran.add("(a request moved off a drained destination)")
			}
		}
		if lowered := m.LoweredReplicas(); len(lowered) > 0 {
			faultNote += fmt.Sprintf(" [replicas lowered: %s]", strings.Join(lowered, ", "))
			for range lowered {
				ran.add("(a destination left for a lowered replicas)")
			}
		}
		t.Logf("step %2d %-9s apply %s, total %s: %s %s%s", step, op.Name, applied.Round(10*time.Millisecond), time.Since(stepStart).Round(10*time.Millisecond), firstLine(op.Desc), m.RolloutText(), faultNote)
	}
}

// planProblem checks the plan after an apply: empty, unless the model says a promise's rollout
// is not complete; then it must be non-empty (exit code 2: rollout_status.checked_at is unknown
// until the rollout completes), and change nothing but those promises.
func planProblem(out string, err error, inFlight []string) string {
	code := 0
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return fmt.Sprintf("terraform plan: %v", err)
		}
		code = exit.ExitCode()
	}
	switch {
	case len(inFlight) == 0 && code != 0:
		return fmt.Sprintf("the plan after the apply is not empty (exit code %d), and no rollout is in flight", code)
	case len(inFlight) == 0:
		return ""
	case code != 2:
		return fmt.Sprintf("the rollouts of %v are not complete, so the plan after the apply must be non-empty (exit code 2), got exit code %d", inFlight, code)
	}
	for _, line := range strings.Split(out, "\n") {
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, "# kratix_") {
			continue
		}
		addr, _, _ := strings.Cut(strings.TrimPrefix(trimmed, "# "), " ")
		if !slices.ContainsFunc(inFlight, func(p string) bool { return addr == "kratix_promise."+p }) || !strings.Contains(trimmed, "updated in-place") {
			return fmt.Sprintf("the plan after the apply may only update the promises whose rollout is in flight (%v), but: %s", inFlight, trimmed)
		}
	}
	return ""
}

// applyCounts reads "Resources: N added, N changed, N destroyed." from terraform apply's output.
func applyCounts(out string) (added, destroyed int, ok bool) {
	i := strings.Index(out, "Apply complete! Resources: ")
	if i < 0 {
		return 0, 0, false
	}
	rest := out[i+len("Apply complete! Resources: "):]
	if _, after, imported := strings.Cut(rest, " imported, "); imported {
		rest = after // "N imported, " comes first when the apply imported something
	}
	var changed int
	_, err := fmt.Sscanf(rest, "%d added, %d changed, %d destroyed", &added, &changed, &destroyed)
	return added, destroyed, err == nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// planSummary keeps the lines of terraform's output that say what happens to each resource.
func planSummary(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "# kratix_") || strings.HasPrefix(trimmed, "Plan:") || strings.HasPrefix(trimmed, "Warning:") || strings.HasPrefix(trimmed, "Error:") {
			keep = append(keep, "  "+trimmed)
		}
	}
	return strings.Join(keep, "\n")
}

func tail(s string, lines int) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(all) > lines {
		all = append([]string{"..."}, all[len(all)-lines:]...)
	}
	return strings.Join(all, "\n")
}

// modelPlacements reads the destinations each request was placed on (its `destinations`, in
// order; none when null), and those of its workload groups under "<request>#<folder>" (none or
// one), which the model checks against its own computation (refmodel/replicas.go, groups.go).
func modelPlacements(c *cli) (map[string][]string, error) {
	out, err := c.run("output", "-json", "choices")
	if err != nil {
		return nil, fmt.Errorf("terraform output: %v\n%s", err, out)
	}
	var raw map[string][]string
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		return nil, fmt.Errorf("terraform output: %v\n%s", err, out)
	}
	placed := map[string][]string{}
	for r, dests := range raw {
		placed[r] = dests // a null list decodes as nil
	}
	return placed, nil
}

// ---------------------------------------------------------------------------------------------
// The two stores of a seed, with independent clients.

// modelConn is how the configuration reaches the two stores of a seed (what the model renders
// it with), and the recorders that stand between the provider and each bucket (nil for git).
type modelConn struct {
	refmodel.Stores
	recorders [2]*s3Recorder
}

func newModelConn(t *testing.T, kind string) *modelConn {
	t.Helper()
	c := &modelConn{Stores: refmodel.Stores{Kind: kind}}
	switch kind {
	case "bucket":
		for i := range c.Names {
			c.Names[i] = randomName("m")
			if err := minioServer.MakeBucket(context.Background(), c.Names[i]); err != nil {
				t.Fatal(err)
			}
		}
		c.Provider = fmt.Sprintf("\nprovider \"kratix\" {\n  secrets = {\n    s = { access_key_id = %[1]q, secret_access_key = %[2]q }\n    t = { access_key_id = %[1]q, secret_access_key = %[2]q }\n  }\n}\n",
			minioServer.AccessKey, minioServer.SecretKey)
		// Each bucket is reached through a recorder of its own, which sees its DELETEs and can
		// take it down (model_fault_test.go).
		var ports [2]string
		for i := range c.recorders {
			c.recorders[i] = startS3Recorder(t, minioServer.Endpoint)
			_, ports[i], _ = strings.Cut(c.recorders[i].endpoint, ":")
		}
		// Host names are case-insensitive: these spell the same endpoint.
		hosts := []string{"localhost", "LOCALHOST", "LocalHost"}
		c.Address = func(store, variant int) string { return hosts[variant] + ":" + ports[store] }
	case "git-http":
		for i := range c.Names {
			c.Names[i] = randomName("m")
			if err := gitServer.CreateRepo(c.Names[i], "main"); err != nil {
				t.Fatal(err)
			}
		}
		c.Provider = fmt.Sprintf("\nprovider \"kratix\" {\n  secrets = {\n    s = { username = %[1]q, password = %[2]q }\n    t = { username = %[1]q, password = %[2]q }\n  }\n}\n",
			gitServer.Username, gitServer.Password)
		// git http-backend answers for a repository with or without ".git".
		c.Address = func(store, variant int) string {
			base := gitServer.HTTPBase + "/" + c.Names[store]
			return [...]string{base + ".git", base}[variant]
		}
	default:
		t.Fatalf("unknown store kind %q", kind)
	}
	return c
}

// snapshot reads every file of both stores.
func (c *modelConn) snapshot(t *testing.T) [2]map[string][]byte {
	t.Helper()
	var out [2]map[string][]byte
	for i, name := range c.Names {
		var err error
		if c.Kind == "bucket" {
			out[i], err = bucketFiles(name)
		} else {
			out[i], err = gitFiles(gitServer.RepoPath(name), "main")
		}
		if err != nil {
			t.Fatalf("reading store %d (%s): %v", i, name, err)
		}
		for p := range out[i] {
			if acctest.IsRecord(p) { // the registry is not the model's: see acctest.GitOpsOnly
				delete(out[i], p)
			}
		}
	}
	return out
}

// hand edits a store directly, as someone else would.
func (c *modelConn) hand(t *testing.T, h refmodel.Hand) {
	t.Helper()
	name := c.Names[h.Store]
	if c.Kind != "bucket" {
		var err error
		if h.Content == nil {
			err = gitServer.DeleteFile(name, "main", h.Path, "by hand: delete "+h.Path)
		} else {
			err = gitServer.PushFile(name, "main", h.Path, h.Content, "by hand: "+h.Path)
		}
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	client, err := minioServer.Client()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if h.Content == nil {
		err = client.RemoveObject(ctx, name, h.Path, minio.RemoveObjectOptions{})
	} else {
		_, err = client.PutObject(ctx, name, h.Path, bytes.NewReader(h.Content), int64(len(h.Content)), minio.PutObjectOptions{})
	}
	if err != nil {
		t.Fatalf("editing %s in %s by hand: %v", h.Path, name, err)
	}
}

// fingerprint changes whenever anything is written to either store: the branch tips of the git
// repositories; every object's ETag and modification time in the buckets. Keys are
// "<store>:<object>" for buckets and "<store>@main" for git.
func (c *modelConn) fingerprint(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i, name := range c.Names {
		if c.Kind != "bucket" {
			tip, err := exec.Command("git", "--git-dir", gitServer.RepoPath(name), "rev-parse", "refs/heads/main").Output()
			if err != nil {
				t.Fatalf("git rev-parse in %s: %v", name, err)
			}
			out[fmt.Sprintf("%d@main", i)] = strings.TrimSpace(string(tip))
			continue
		}
		client, err := minioServer.Client()
		if err != nil {
			t.Fatal(err)
		}
		for o := range client.ListObjects(context.Background(), name, minio.ListObjectsOptions{Recursive: true}) {
			if o.Err != nil {
				t.Fatalf("listing %s: %v", name, o.Err)
			}
			if acctest.IsRecord(o.Key) {
				continue // the registry is not the model's: see acctest.GitOpsOnly
			}
			out[fmt.Sprintf("%d:%s", i, o.Key)] = o.ETag + " " + o.LastModified.Format(time.RFC3339Nano)
		}
	}
	return out
}

// wroteLayout reports whether anything but the registry (registration and owner records) was
// written between two fingerprints: on buckets the fingerprints leave the registry out; on git,
// the paths the commits changed are looked at.
func (c *modelConn) wroteLayout(before, after map[string]string) bool {
	if c.Kind == "bucket" || len(before) != len(after) {
		return !maps.Equal(before, after)
	}
	for i, name := range c.Names {
		key := fmt.Sprintf("%d@main", i)
		if before[key] == after[key] {
			continue
		}
		// The paths the commits changed: a commit that changes only the registry (a record
		// rewritten, an owner record taken over by an import) is no write of the layout.
		changed, err := exec.Command("git", "--git-dir", gitServer.RepoPath(name), "diff", "--name-only", before[key], after[key]).Output()
		if err != nil {
			return true
		}
		for _, p := range strings.Fields(string(changed)) {
			if !acctest.IsRecord(p) {
				return true
			}
		}
	}
	return false
}

// commitProblems checks the commits an apply made in the git repositories (one commit per apply and store): each
// changes at least one file ("Nothing changed: no commit"), and says what it is in Kratix's
// style ("Update from: ..." or "Delete from: ...").
func (c *modelConn) commitProblems(before, after map[string]string) []string {
	if c.Kind == "bucket" {
		return nil
	}
	var out []string
	for i, name := range c.Names {
		key := fmt.Sprintf("%d@main", i)
		if before[key] == after[key] {
			continue
		}
		repo := gitServer.RepoPath(name)
		log, err := exec.Command("git", "--git-dir", repo, "log", "--format=%H %s", before[key]+".."+after[key]).Output()
		if err != nil {
			out = append(out, fmt.Sprintf("store %d: git log: %v", i, err))
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
			sha, subject, _ := strings.Cut(line, " ")
			if strings.HasPrefix(subject, "by hand:") {
				continue
			}
			if !strings.HasPrefix(subject, "Update from: ") && !strings.HasPrefix(subject, "Delete from: ") {
				out = append(out, fmt.Sprintf("store %d: commit %.8s %q is not in Kratix's style", i, sha, subject))
			}
			changed, err := exec.Command("git", "--git-dir", repo, "diff-tree", "--no-commit-id", "--name-only", "-r", sha).Output()
			if err == nil && len(strings.TrimSpace(string(changed))) == 0 {
				out = append(out, fmt.Sprintf("store %d: commit %.8s %q changes nothing", i, sha, subject))
			}
		}
	}
	return out
}

// writes describes what changed between two fingerprints: objects written or deleted, or the
// commits made and the files they changed.
func (c *modelConn) writes(before, after map[string]string) string {
	var out []string
	for _, k := range tfvalue.SortedKeys(after) {
		switch b, ok := before[k]; {
		case !ok:
			out = append(out, "  written (new) "+k)
		case b != after[k] && c.Kind == "bucket":
			out = append(out, "  written       "+k)
		case b != after[k]:
			store, _ := strconv.Atoi(strings.TrimSuffix(k, "@main"))
			repo := gitServer.RepoPath(c.Names[store])
			log, _ := exec.Command("git", "--git-dir", repo, "log", "--format=  commit %h %s (%an)", "--name-status", b+".."+after[k]).CombinedOutput()
			out = append(out, fmt.Sprintf("  store %d:\n%s", store, strings.TrimRight(string(log), "\n")))
		}
	}
	for _, k := range tfvalue.SortedKeys(before) {
		if _, ok := after[k]; !ok {
			out = append(out, "  deleted       "+k)
		}
	}
	return strings.Join(out, "\n")
}

// modelPartExpect is an aggregate part edited by hand and what it must hold again after the apply.
type modelPartExpect struct {
	store   int
	path    string
	content []byte
	desc    string
}

// editPart deletes or overwrites one of the aggregate parts (or index files: e.Dir) that the
// promises (scheduled placements) and requests record in state, chosen by e.Pick. Only which file
// to edit comes from the provider's state; what must follow (the same bytes back, the aggregate
// whole) does not.
func (c *modelConn) editPart(t *testing.T, cl *cli, e refmodel.PartEdit) (*modelPartExpect, error) {
	t.Helper()
	out, err := cl.run("show", "-json")
	if err != nil {
		return nil, fmt.Errorf("terraform show: %v\n%s", err, out)
	}
	var state struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address string          `json:"address"`
					Type    string          `json:"type"`
					Values  json.RawMessage `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(out), &state); err != nil {
		return nil, fmt.Errorf("terraform show: %v", err)
	}
	type placed struct {
		Location     string            `json:"location"`
		Misscheduled bool              `json:"misscheduled"`
		Files        map[string]string `json:"files"`
		WrittenFiles map[string]string `json:"written_files"`
		Placements   map[string]struct {
			Location     string            `json:"location"`
			Misscheduled bool              `json:"misscheduled"`
			Files        map[string]string `json:"files"`
		} `json:"placements"`
	}
	type ref struct {
		store       int
		path, owner string
	}
	var parts []ref
	collect := func(owner, location string, files map[string]string) {
		store := c.bucketOf(location)
		for p := range files {
			if store >= 0 && slices.Contains(strings.Split(p, "/"), e.Dir) {
				parts = append(parts, ref{store, p, owner})
			}
		}
	}
	for _, r := range state.Values.RootModule.Resources {
		var v placed
		if err := json.Unmarshal(r.Values, &v); err != nil {
			return nil, fmt.Errorf("%s: %v", r.Address, err)
		}
		switch r.Type {
		case "kratix_promise":
			for dest, pl := range v.Placements {
				if !pl.Misscheduled { // a misscheduled placement is not updated, nor repaired
					collect(r.Address+" on "+dest, pl.Location, pl.Files)
				}
			}
		case "kratix_resource_request":
			collect(r.Address, v.Location, v.WrittenFiles)
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("the model has a live placement that keeps a file in %s/, but no promise or request records one", e.Dir)
	}
	sort.Slice(parts, func(i, j int) bool {
		return parts[i].store < parts[j].store || parts[i].store == parts[j].store && parts[i].path < parts[j].path
	})
	p := parts[e.Pick%len(parts)]
	content, ok := c.snapshot(t)[p.store][p.path]
	if !ok {
		return nil, fmt.Errorf("%s records aggregate part %s (store %d), which the store does not hold", p.owner, p.path, p.store)
	}
	h := refmodel.Hand{Store: p.store, Path: p.path}
	verb := "deleted"
	if !e.Delete {
		h.Content = []byte("# edited by hand\nkind: Tampered\n")
		if e.Dir == ".kratix" {
			h.Content = []byte("files:\n- tampered-by-hand.yaml\n")
		}
		verb = "overwritten"
	}
	c.hand(t, h)
	return &modelPartExpect{store: p.store, path: p.path, content: content, desc: fmt.Sprintf("%s %s (store %d, of %s)", verb, p.path, p.store, p.owner)}, nil
}

// bucketOf is the store (0 or 1) a normalised location names, -1 for neither.
func (c *modelConn) bucketOf(location string) int {
	for i, name := range c.Names {
		if strings.HasSuffix(location, "/"+name) || strings.Contains(location, "/"+name+"@") {
			return i
		}
	}
	return -1
}

func bucketFiles(bucket string) (map[string][]byte, error) {
	client, err := minioServer.Client()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	files := map[string][]byte{}
	for o := range client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			return nil, o.Err
		}
		obj, err := client.GetObject(ctx, bucket, o.Key, minio.GetObjectOptions{})
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(obj)
		_ = obj.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Key, err)
		}
		files[o.Key] = b
	}
	return files, nil
}

// gitFiles reads every file at the tip of branch with the git CLI: one ls-tree and one
// cat-file --batch.
func gitFiles(repo, branch string) (map[string][]byte, error) {
	ls, err := exec.Command("git", "--git-dir", repo, "ls-tree", "-r", "-z", "refs/heads/"+branch).Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-tree: %w", err)
	}
	var paths, ids []string
	for _, entry := range strings.Split(strings.TrimSuffix(string(ls), "\x00"), "\x00") {
		if entry == "" {
			continue
		}
		meta, p, ok := strings.Cut(entry, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 || fields[1] != "blob" {
			return nil, fmt.Errorf("git ls-tree: unexpected entry %q", entry)
		}
		paths, ids = append(paths, p), append(ids, fields[2])
	}
	files := map[string][]byte{}
	if len(ids) == 0 {
		return files, nil
	}
	cmd := exec.Command("git", "--git-dir", repo, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w: %s", err, stderr.String())
	}
	r := bufio.NewReader(bytes.NewReader(out))
	for i := range ids {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		fields := strings.Fields(header)
		if len(fields) != 3 || fields[0] != ids[i] {
			return nil, fmt.Errorf("git cat-file: unexpected header %q for %s", header, ids[i])
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil {
			return nil, fmt.Errorf("git cat-file: header %q: %w", header, err)
		}
		content := make([]byte, size+1) // the content and a newline
		if _, err := io.ReadFull(r, content); err != nil {
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		files[paths[i]] = content[:size]
	}
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("git cat-file: trailing output")
	}
	return files, nil
}
