package registry

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

func promiseWithPool() Promise {
	return Promise{Name: "postgres", Owner: "platform-eu", WrittenAt: at,
		Selectors: []scheduling.Selector{
			{MatchLabels: map[string]string{"env": "prod"}},
			{MatchExpressions: []scheduling.Requirement{{Key: "zone", Operator: "In", Values: []string{"eu"}}}},
		},
		Pool: []PoolMember{
			{Name: "w2", Path: "w2", StoreKind: GitStateStore, StoreName: "fleet", StoreLocation: "git+https://git.example/fleet@main", Mode: "nestedByMetadata"},
			PoolMember{Name: "w1", Labels: map[string]string{"env": "prod"}, Path: "w1", Weight: 3, Instance: "abc", StoreKind: BucketStateStore,
				StoreName: "s", StoreLocation: "s3://minio:9000/kratix", StorePath: "fleet", Mode: "aggregatedYAML", AggregatedFilename: "all.yaml",
			}.WithTaints([]scheduling.Taint{{Key: "m", Effect: "NoSchedule"}}),
		},
	}
}

func TestRenderPromise(t *testing.T) {
	tests := []struct {
		name string
		p    Promise
		want string
	}{
		{"selectors with expressions, a pool of two", promiseWithPool(), `apiVersion: platform.kratix.io/v1alpha1
kind: Promise
metadata:
  annotations:
    terraform.kratix.io/destination-selectors: '[{"matchLabels":{"env":"prod"}},{"matchExpressions":[{"key":"zone","operator":"In","values":["eu"]}]}]'
    terraform.kratix.io/destinations: '[{"name":"w1","labels":{"env":"prod"},"path":"w1","filepathMode":"aggregatedYAML","aggregatedFilename":"all.yaml","taints":[{"key":"m","effect":"NoSchedule"}],"weight":3,"instanceID":"abc","storeKind":"BucketStateStore","storeName":"s","storeLocation":"s3://minio:9000/kratix","storePath":"fleet"},{"name":"w2","path":"w2","storeKind":"GitStateStore","storeName":"fleet","storeLocation":"git+https://git.example/fleet@main"}]'
    terraform.kratix.io/owner: platform-eu
    terraform.kratix.io/written-at: "2026-11-29T17:30:05Z"
  name: postgres
spec:
  destinationSelectors:
  - matchLabels:
      env: prod
  - matchLabels: {}
`},
		{"no selectors, no pool, unnamed owner", Promise{Name: "jenkins", WrittenAt: at}, `apiVersion: platform.kratix.io/v1alpha1
kind: Promise
metadata:
  annotations:
    terraform.kratix.io/destinations: '[]'
    terraform.kratix.io/written-at: "2026-11-29T17:30:05Z"
  name: jenkins
spec: {}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(RenderPromise(tt.p))
			if got != tt.want {
				t.Errorf("RenderPromise:\n%s\nwant:\n%s", got, tt.want)
			}
			back, err := ParsePromise([]byte(got))
			if err != nil {
				t.Fatal(err)
			}
			again := string(RenderPromise(back))
			if again != got {
				t.Errorf("rendering the parsed record gives other bytes:\n%s", again)
			}
		})
	}
	back, _ := ParsePromise(RenderPromise(promiseWithPool()))
	if w1 := back.Pool[0]; w1.Name != "w1" || w1.Weight != 3 || !reflect.DeepEqual(w1.TaintList(), []scheduling.Taint{{Key: "m", Effect: "NoSchedule"}}) {
		t.Errorf("w1 read back as %+v", w1)
	}
	if w2 := back.Pool[1]; w2.Mode != "nestedByMetadata" || w2.AggregatedFilename != "aggregated.yaml" {
		t.Errorf("w2's defaults read back as %+v", w2)
	}
	if back.Selectors[1].MatchExpressions[0].Values[0] != "eu" || !back.WrittenAt.Equal(at) {
		t.Errorf("read back as %+v", back)
	}
}

// A Promise written by Kratix: its matchLabels are the selectors, the pool is empty.
func TestParsePromiseFromKratix(t *testing.T) {
	p, err := ParsePromise([]byte(`apiVersion: platform.kratix.io/v1alpha1
kind: Promise
metadata:
  name: jenkins
  generation: 3
spec:
  destinationSelectors:
  - matchLabels:
      environment: dev
  dependencies:
  - apiVersion: v1
    kind: Namespace
    metadata:
      name: jenkins
`))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Promise{Name: "jenkins", Selectors: []scheduling.Selector{{MatchLabels: map[string]string{"environment": "dev"}}}, Pool: []PoolMember{}}); !reflect.DeepEqual(p, want) {
		t.Errorf("ParsePromise = %+v, want %+v", p, want)
	}
	for name, bad := range map[string]string{
		"a Destination":          "apiVersion: platform.kratix.io/v1alpha1\nkind: Destination\nmetadata:\n  name: x\n",
		"a pool not JSON":        "apiVersion: platform.kratix.io/v1alpha1\nkind: Promise\nmetadata:\n  name: x\n  annotations:\n    terraform.kratix.io/destinations: w1\n",
		"a member with no store": "apiVersion: platform.kratix.io/v1alpha1\nkind: Promise\nmetadata:\n  name: x\n  annotations:\n    terraform.kratix.io/destinations: '[{\"name\":\"w1\",\"path\":\"w1\"}]'\n",
		"no name":                "apiVersion: platform.kratix.io/v1alpha1\nkind: Promise\n",
	} {
		if _, err := ParsePromise([]byte(bad)); err == nil {
			t.Errorf("%s: ParsePromise accepted it", name)
		}
	}
}

func TestMergePromises(t *testing.T) {
	member := func(name, loc string) PoolMember {
		return PoolMember{Name: name, Path: name, StoreKind: BucketStateStore, StoreName: "s", StoreLocation: loc, Mode: "nestedByMetadata", AggregatedFilename: "aggregated.yaml"}
	}
	prod := []scheduling.Selector{{MatchLabels: map[string]string{"env": "prod"}}}
	shard0 := Promise{Name: "pg", Owner: "platform-0", Selectors: prod, Pool: []PoolMember{member("w3", "s3://a/b"), member("w1", "s3://a/b")}, WrittenAt: at}
	shard1 := Promise{Name: "pg", Owner: "platform-1", Selectors: prod, Pool: []PoolMember{member("w2", "s3://a/b")}, WrittenAt: at.Add(time.Hour)}
	got, err := MergePromises([]Promise{shard1, shard0})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range got.Pool {
		names = append(names, m.Name)
	}
	if strings.Join(names, " ") != "w1 w2 w3" || !got.WrittenAt.Equal(at.Add(time.Hour)) || got.Owner != "" || len(got.Selectors) != 1 {
		t.Errorf("MergePromises = %+v", got)
	}
	// The same destination said the same way by two owners is one member.
	if got, err := MergePromises([]Promise{shard0, {Name: "pg", Owner: "platform-1", Selectors: prod, Pool: []PoolMember{member("w1", "s3://a/b")}}}); err != nil || len(got.Pool) != 2 {
		t.Errorf("an agreed overlap: %+v, %v", got, err)
	}
	for name, tt := range map[string]struct {
		records []Promise
		want    string
	}{
		"other selectors": {[]Promise{shard0, {Name: "pg", Owner: "platform-1", Pool: []PoolMember{}}},
			`owners "platform-0" and "platform-1" publish promise "pg" with different destination selectors (env=prod and none)`},
		"a destination said two ways": {[]Promise{shard0, {Name: "pg", Owner: "platform-1", Selectors: prod, Pool: []PoolMember{member("w1", "s3://other/b")}}},
			`owners "platform-0" and "platform-1" both publish promise "pg" over destination "w1", and say different things of it`},
		"none": {nil, "no record"},
	} {
		if _, err := MergePromises(tt.records); err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v, want %q", name, err, tt.want)
		}
	}
}

func TestLatest(t *testing.T) {
	older := Promise{Name: "pg", Owner: "platform", WrittenAt: at, Pool: []PoolMember{{Name: "w1"}}}
	newer := Promise{Name: "pg", Owner: "platform", WrittenAt: at.Add(time.Minute), Pool: []PoolMember{{Name: "w1"}, {Name: "w2"}}}
	other := Promise{Name: "pg", Owner: "", WrittenAt: at}
	got := Latest([]Promise{newer, other, older})
	if len(got) != 2 || got[0].Owner != "" || got[1].Owner != "platform" || len(got[1].Pool) != 2 {
		t.Errorf("Latest = %+v, want the unnamed owner's record, then platform's written at %v (two destinations)", got, newer.WrittenAt)
	}
	if got := Latest(nil); len(got) != 0 {
		t.Errorf("Latest(nil) = %+v", got)
	}
}

func TestPromiseSameAndInstance(t *testing.T) {
	p := promiseWithPool()
	p.Instance = "0a1b2c"
	parsed, err := ParsePromise(RenderPromise(p))
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Instance != "0a1b2c" {
		t.Errorf("the instance reads back as %q, want 0a1b2c", parsed.Instance)
	}
	if !strings.Contains(string(RenderPromise(p)), "terraform.kratix.io/instance-id: 0a1b2c\n") {
		t.Errorf("the record has no instance annotation:\n%s", RenderPromise(p))
	}
	later := p
	later.WrittenAt = p.WrittenAt.Add(time.Hour)
	if !p.Same(later) {
		t.Errorf("a record written later, saying the same, is not Same")
	}
	for name, change := range map[string]func(*Promise){
		"instance": func(q *Promise) { q.Instance = "other" },
		"owner":    func(q *Promise) { q.Owner = "other" },
		"pool":     func(q *Promise) { q.Pool = q.Pool[:1] },
		"selector": func(q *Promise) { q.Selectors = nil },
	} {
		q := p
		q.Pool = slices.Clone(p.Pool)
		change(&q)
		if p.Same(q) {
			t.Errorf("a record with another %s is Same", name)
		}
	}
}
