package provider

// TestAccModelWorkspaces_*: the reference model learns workspaces (issue 39, point 6). Per seed,
// two or three working directories (states of their own, each with its own provider `owner`)
// share one bucket or one repository; random steps (refmodel/workspaces.go) register and
// deregister destinations, place promises and destroy them (one promise may be placed by several
// workspaces, each on its own folders), claim what another workspace holds (the plan must be
// refused, naming both owners, and the store must not change at all), destroy a whole workspace,
// and apply a workspace unchanged. Each step is one terraform command in one workspace, with the
// real CLI. After every step the whole store, read back with an independent client (plain
// minio-go, the git CLI), must hold what the model says, registry included: nothing is left out
// but the instance tokens and times of the records (refmodel.Bookkeeping). After an apply in a
// workspace that had a state, its data.kratix_destinations (read at plan) must list exactly the
// destinations registered before the step, and one selecting its own label exactly those it
// registered; an unchanged apply must write nothing.
//
// Knobs (environment):
//   KRATIX_MODEL_WS_SEED=N      run only seed N
//   KRATIX_MODEL_WS_SEEDS=N     number of seeds (default 20), from KRATIX_MODEL_WS_FIRST_SEED (default 1)
//   KRATIX_MODEL_WS_STEPS=N     steps per seed (default 10)
//   KRATIX_MODEL_WS_OPS=a,b     only these operations (refmodel.WsOpNames)
//   KRATIX_MODEL_WS_PARALLEL=N  seeds run at once (default 3)

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/refmodel"
)

func TestAccModelWorkspaces_bucket(t *testing.T)  { runModelWorkspaces(t, "bucket") }
func TestAccModelWorkspaces_gitHTTP(t *testing.T) { runModelWorkspaces(t, "git-http") }

type wsModelSettings struct {
	seeds    []int64
	steps    int
	ops      []string
	parallel int
}

func wsModelSettingsFromEnv(t *testing.T) wsModelSettings {
	t.Helper()
	s := wsModelSettings{steps: envInt(t, "KRATIX_MODEL_WS_STEPS", 10), parallel: max(1, envInt(t, "KRATIX_MODEL_WS_PARALLEL", 3)),
		ops: envList(t, "KRATIX_MODEL_WS_OPS", refmodel.WsOpNames)}
	if v := os.Getenv("KRATIX_MODEL_WS_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("KRATIX_MODEL_WS_SEED=%q: want a number", v)
		}
		s.seeds = []int64{n}
		return s
	}
	first := int64(envInt(t, "KRATIX_MODEL_WS_FIRST_SEED", 1))
	for i := range envInt(t, "KRATIX_MODEL_WS_SEEDS", 20) {
		s.seeds = append(s.seeds, first+int64(i))
	}
	return s
}

func runModelWorkspaces(t *testing.T, kind string) {
	t.Parallel()
	requireAcceptance(t)
	s := wsModelSettingsFromEnv(t)
	start := time.Now()
	ran := &modelTally{steps: map[string]int{}}
	failed := runSeeds(t, s.seeds, s.parallel, func(t *testing.T, seed int64) { runModelWorkspacesSeed(t, kind, seed, s, ran) })
	t.Logf("%s: %d seeds x %d steps (operations %s) in %s", kind, len(s.seeds), s.steps, strings.Join(s.ops, ","), time.Since(start).Round(time.Second))
	t.Logf("%s: steps that passed, by operation: %s", kind, ran.text())
	if len(failed) > 0 {
		ops := ""
		if !slices.Equal(s.ops, refmodel.WsOpNames) {
			ops = " KRATIX_MODEL_WS_OPS=" + strings.Join(s.ops, ",")
		}
		t.Errorf("MODEL FAILURES %s: seeds %v of %d; reproduce one with KRATIX_MODEL_WS_SEED=<seed> KRATIX_MODEL_WS_STEPS=%d%s TF_ACC=1 go test ./internal/provider -run '^%s$' -v",
			kind, failed, len(s.seeds), s.steps, ops, t.Name())
	}
}

// wsModelStore is the one store the workspaces of a seed share, as the model renders it, and an
// independent reader of it.
type wsModelStore struct {
	refmodel.Stores
}

func newWsModelStore(t *testing.T, kind string) *wsModelStore {
	t.Helper()
	st := &wsModelStore{refmodel.Stores{Kind: kind}}
	st.Names[0] = randomName("mws")
	switch kind {
	case "bucket":
		if err := minioServer.MakeBucket(context.Background(), st.Names[0]); err != nil {
			t.Fatal(err)
		}
		st.Provider = kratixProviderBlock{Secrets: []hclAttr{bucketSecret("s", minioServer.AccessKey, minioServer.SecretKey)}}.String()
		st.Address = func(int, int) string { return minioServer.Endpoint }
	case "git-http":
		if err := gitServer.CreateRepo(st.Names[0], "main"); err != nil {
			t.Fatal(err)
		}
		st.Provider = kratixProviderBlock{Secrets: []hclAttr{gitHTTPSecret("s")}}.String()
		st.Address = func(int, int) string { return gitServer.HTTPURL(st.Names[0]) }
	default:
		t.Fatalf("unknown store kind %q", kind)
	}
	return st
}

// files reads every file of the store.
func (st *wsModelStore) files(t *testing.T) map[string][]byte {
	t.Helper()
	var files map[string][]byte
	var err error
	if st.Kind == "bucket" {
		files, err = bucketFiles(st.Names[0])
	} else {
		files, err = gitFiles(gitServer.RepoPath(st.Names[0]), "main")
	}
	if err != nil {
		t.Fatalf("reading %s: %v", st.Names[0], err)
	}
	return files
}

// tip changes whenever anything is written to the store: the branch's tip; every object's ETag
// and modification time.
func (st *wsModelStore) tip(t *testing.T) string {
	t.Helper()
	if st.Kind != "bucket" {
		out, err := exec.Command("git", "--git-dir", gitServer.RepoPath(st.Names[0]), "rev-parse", "refs/heads/main").Output()
		if err != nil {
			t.Fatalf("git rev-parse in %s: %v", st.Names[0], err)
		}
		return strings.TrimSpace(string(out))
	}
	client, err := minioServer.Client()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for o := range client.ListObjects(context.Background(), st.Names[0], minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatalf("listing %s: %v", st.Names[0], o.Err)
		}
		fmt.Fprintf(&b, "%s %s %s\n", o.Key, o.ETag, o.LastModified.Format(time.RFC3339Nano))
	}
	return b.String()
}

// listed reads a workspace's outputs "registered" and "own": the names its two
// data.kratix_destinations list (all of them; those with its own label).
func listed(c *cli) (all, own []string, err error) {
	out, err := c.run("output", "-json")
	if err != nil {
		return nil, nil, fmt.Errorf("terraform output: %v\n%s", err, out)
	}
	var outputs struct {
		Registered struct{ Value []string } `json:"registered"`
		Own        struct{ Value []string } `json:"own"`
	}
	if err := json.Unmarshal([]byte(out), &outputs); err != nil {
		return nil, nil, fmt.Errorf("terraform output: %v\n%s", err, out)
	}
	return outputs.Registered.Value, outputs.Own.Value, nil
}

func runModelWorkspacesSeed(t *testing.T, kind string, seed int64, s wsModelSettings, ran *modelTally) {
	st := newWsModelStore(t, kind)
	m := refmodel.NewWorkspaces(seed)
	clis := make([]*cli, m.Count())
	for i := range clis {
		clis[i] = newCLI(t, nil)
	}
	var history []string
	fail := func(step int, format string, args ...any) {
		t.Helper()
		t.Fatalf("FAIL seed=%d kind=%s step=%d: %s\n\nworkspaces now:\n%s\n\nsteps so far:\n%s\n\nreproduce: KRATIX_MODEL_WS_SEED=%d KRATIX_MODEL_WS_STEPS=%d TF_ACC=1 go test ./internal/provider -run '^%s$' -v",
			seed, kind, step, fmt.Sprintf(format, args...), m.Describe(), strings.Join(history, "\n"), seed, step, strings.Split(t.Name(), "/")[0])
	}
	initial := st.files(t) // a git repository's README: it must stay
	for step := 1; step <= s.steps; step++ {
		listedBefore := m.Registered()
		ownBefore := make([][]string, m.Count())
		for i := range ownBefore {
			ownBefore[i] = m.RegisteredBy(i)
		}
		op := m.Next(s.ops)
		hadState := m.HasState(op.WS)
		history = append(history, fmt.Sprintf("  %2d. %s: %s", step, op.Name, op.Desc))
		c := clis[op.WS]
		config := m.Render(op.WS, &st.Stores)
		if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		stepStart := time.Now()
		before, tipBefore := st.files(t), st.tip(t)
		var out string
		var err error
		switch op.Command {
		case "plan":
			out, err = c.run("plan", "-input=false")
			if err == nil || !strings.Contains(out, op.ExpectError) {
				fail(step, "terraform plan in %s should fail with %q (err %v):\n%s\n\nconfiguration:\n%s", m.Owner(op.WS), op.ExpectError, err, tail(out, 60), config)
			}
			for _, want := range op.ExpectAlso {
				if !strings.Contains(flat(out), want) {
					fail(step, "the refusal %q does not say %q:\n%s", op.ExpectError, want, tail(out, 60))
				}
			}
			op.Revert()
		case "destroy":
			out, err = c.run("destroy", "-auto-approve", "-input=false")
		default:
			out, err = c.run("apply", "-auto-approve", "-input=false")
		}
		if op.ExpectError == "" {
			if err != nil {
				fail(step, "terraform %s in %s: %v\n%s\n\nconfiguration:\n%s", op.Command, m.Owner(op.WS), err, tail(out, 60), config)
			}
			m.Applied(op)
		}
		after, tipAfter := st.files(t), st.tip(t)
		if op.NoWrite && (tipAfter != tipBefore || !maps.EqualFunc(after, before, func(a, b []byte) bool { return string(a) == string(b) })) {
			fail(step, "%s must write nothing, but the store changed:\n  before: %v\n  after:  %v\n\nwhat terraform did:\n%s", op.Name, sortedKeysOf(stringsOf(before)), sortedKeysOf(stringsOf(after)), planSummary(out))
		}
		problems := m.StoreProblems(kind, initial, after)
		if kind != "bucket" {
			// Each commit in Kratix's style, and none empty (modelConn.commitProblems, of store 0).
			problems = append(problems, (&modelConn{Stores: st.Stores}).commitProblems(map[string]string{"0@main": tipBefore}, map[string]string{"0@main": tipAfter})...)
		}
		if len(problems) > 0 {
			fail(step, "the store does not hold what the model says after %s\n\n%s\n\nwhat terraform did:\n%s", op.Name, strings.Join(problems, "\n"), planSummary(out))
		}
		if op.Command == "apply" && hadState {
			// Read at plan, before the apply wrote: what was registered before the step.
			all, own, err := listed(c)
			if err != nil {
				fail(step, "%v", err)
			}
			if !slices.Equal(all, listedBefore) {
				fail(step, "data.kratix_destinations in %s lists %q, want %q (registered before the step)", m.Owner(op.WS), all, listedBefore)
			}
			if !slices.Equal(own, ownBefore[op.WS]) {
				fail(step, "data.kratix_destinations selecting team = %s lists %q, want %q (what it registered before the step)", m.Owner(op.WS), own, ownBefore[op.WS])
			}
			ran.add("(data.kratix_destinations checked)")
		}
		ran.add(op.Name)
		t.Logf("step %2d %-10s %s: %s", step, op.Name, time.Since(stepStart).Round(10*time.Millisecond), op.Desc)
	}
}

// stringsOf is files with their contents as strings.
func stringsOf(files map[string][]byte) map[string]string {
	out := make(map[string]string, len(files))
	for p, c := range files {
		out[p] = string(c)
	}
	return out
}
