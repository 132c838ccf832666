package placement

import (
	"reflect"
	"strings"
	"testing"
)

const (
	locA = "s3://minio:9000/kratix"
	locB = "git+https://git.example/org/fleet@main"
	// Index files as this provider names them, spelled by hand:
	// .kratix/<namespace>-<promise>_<name>_<namespace>_<pipeline>.<destination>-5058f.yaml
	pgIndex    = "dev/.kratix/default-postgres_team-a_default_instance-configure.dev-5058f.yaml"
	redisIndex = "dev/.kratix/default-redis_team-a_default_instance-configure.dev-5058f.yaml"
	depsIndex  = "dev/.kratix/kratix-platform-system-postgres-static-deps.dev-5058f.yaml"
)

func rec(loc string, files ...string) Record {
	r := Record{Location: loc, Files: map[string]string{}}
	for _, f := range files {
		r.Files[f] = "0123"
	}
	return r
}

func TestClaims(t *testing.T) {
	pg, redis := RequestOwner("default", "postgres", "team-a"), RequestOwner("default", "redis", "team-a")
	tests := []struct {
		name  string
		steps []struct {
			owner   Owner
			records map[string]Record
		}
		want []Collision // of the last step
	}{
		{
			name: "two requests of two promises with one name in mode none",
			steps: []struct {
				owner   Owner
				records map[string]Record
			}{
				{pg, map[string]Record{"dev": rec(locA, "dev/team-a.yaml", pgIndex)}},
				{redis, map[string]Record{"dev": rec(locA, "dev/team-a.yaml", redisIndex)}},
			},
			want: []Collision{{Location: locA, Path: "dev/team-a.yaml", Other: pg}},
		},
		{
			name: "one path in two locations is two files",
			steps: []struct {
				owner   Owner
				records map[string]Record
			}{
				{pg, map[string]Record{"dev": rec(locA, "dev/team-a.yaml")}},
				{redis, map[string]Record{"dev": rec(locB, "dev/team-a.yaml")}},
			},
		},
		{
			name: "the same owner planned again does not collide with itself",
			steps: []struct {
				owner   Owner
				records map[string]Record
			}{
				{pg, map[string]Record{"dev": rec(locA, "dev/team-a.yaml")}},
				{pg, map[string]Record{"dev": rec(locA, "dev/team-a.yaml")}},
			},
		},
		{
			name: "a later plan of an owner gives up what its earlier plan claimed",
			steps: []struct {
				owner   Owner
				records map[string]Record
			}{
				{pg, map[string]Record{"dev": rec(locA, "dev/team-a.yaml")}},
				{pg, map[string]Record{"prod": rec(locA, "prod/team-a.yaml")}},
				{redis, map[string]Record{"dev": rec(locA, "dev/team-a.yaml")}},
			},
		},
		{
			name: "a shared files key",
			steps: []struct {
				owner   Owner
				records map[string]Record
			}{
				{pg, map[string]Record{"dev": rec(locA, "dev/config/app.yaml", "dev/team-a.yaml")}},
				{redis, map[string]Record{"dev": rec(locA, "dev/config/app.yaml", "dev/other.yaml")}},
			},
			want: []Collision{{Location: locA, Path: "dev/config/app.yaml", Other: pg}},
		},
		{
			name: "the aggregatedYAML file is everybody's",
			steps: []struct {
				owner   Owner
				records map[string]Record
			}{
				{pg, map[string]Record{"dev": {Location: locA, Files: map[string]string{"dev/aggregated.yaml": "part:01"}}}},
				{redis, map[string]Record{"dev": {Location: locA, Files: map[string]string{"dev/aggregated.yaml": "part:02"}}}},
			},
		},
		{
			name: "a request's file onto a promise's file",
			steps: []struct {
				owner   Owner
				records map[string]Record
			}{
				{PromiseOwner("postgres"), map[string]Record{"dev": rec(locA, "dev/crds/00-default-x-default-crds.yaml")}},
				{redis, map[string]Record{"dev": rec(locA, "dev/crds/00-default-x-default-crds.yaml")}},
			},
			want: []Collision{{Location: locA, Path: "dev/crds/00-default-x-default-crds.yaml", Other: PromiseOwner("postgres")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Claims
			var got []Collision
			for _, s := range tt.steps {
				got = c.Claim(s.owner, s.records)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestClaimsKeepTheFirstOwner(t *testing.T) {
	var c Claims
	pg, redis := RequestOwner("default", "postgres", "team-a"), RequestOwner("default", "redis", "team-a")
	c.Claim(pg, map[string]Record{"dev": rec(locA, "dev/team-a.yaml")})
	c.Claim(redis, map[string]Record{"dev": rec(locA, "dev/team-a.yaml", redisIndex)})
	if !c.Owned(pg, locA, "dev/team-a.yaml") || c.Owned(redis, locA, "dev/team-a.yaml") {
		t.Error("the refused claim took the path")
	}
	if !c.Owned(redis, locA, redisIndex) {
		t.Error("the refused owner's other paths are not recorded")
	}
	if !c.Planned(redis) || c.Planned(RequestOwner("default", "mysql", "team-a")) {
		t.Error("Planned is wrong")
	}
}

func TestListedBy(t *testing.T) {
	indexes := map[string][]string{
		pgIndex:    {"dev/team-a.yaml"},
		redisIndex: {"dev/team-a.yaml", "dev/cache.yaml"},
	}
	mine := func(i string) bool { return i == redisIndex }
	got := ListedBy(indexes, mine, []string{"dev/team-a.yaml", "dev/cache.yaml", "dev/new.yaml"})
	want := map[string]string{"dev/team-a.yaml": pgIndex}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestSpare(t *testing.T) {
	kratixPg := "dev/.kratix/default-postgres-team-a-default-instance-configure-ab12c.dev-5058f.yaml"
	kratixDeps := "dev/.kratix/kratix-platform-system-postgres-static-deps-9f3e1.dev-5058f.yaml"
	kratixOtherDeps := "dev/.kratix/kratix-platform-system-mysql-static-deps-9f3e1.dev-5058f.yaml"
	tests := []struct {
		name       string
		change     Change
		indexes    map[string][]string
		wantDelete []string
		wantSpared []Spared
	}{
		{
			name:       "a destroy keeps the file another request's index lists",
			change:     Change{Delete: []string{"dev/team-a.yaml", redisIndex}},
			indexes:    map[string][]string{pgIndex: {"dev/team-a.yaml"}, redisIndex: {"dev/team-a.yaml"}},
			wantDelete: []string{redisIndex},
			wantSpared: []Spared{{Path: "dev/team-a.yaml", Index: pgIndex}},
		},
		{
			name:       "a prune keeps it too",
			change:     Change{Put: map[string][]byte{redisIndex: []byte("files: [dev/b.yaml]\n"), "dev/b.yaml": nil}, Delete: []string{"dev/team-a.yaml"}},
			indexes:    map[string][]string{pgIndex: {"dev/team-a.yaml"}, redisIndex: {"dev/team-a.yaml"}},
			wantSpared: []Spared{{Path: "dev/team-a.yaml", Index: pgIndex}},
		},
		{
			name:       "a Kratix index of another WorkPlacement counts",
			change:     Change{Delete: []string{"dev/team-a.yaml", redisIndex}},
			indexes:    map[string][]string{kratixPg: {"dev/team-a.yaml"}},
			wantDelete: []string{redisIndex},
			wantSpared: []Spared{{Path: "dev/team-a.yaml", Index: kratixPg}},
		},
		{
			name:       "the Kratix index of the same WorkPlacement is the placement's own",
			change:     Change{Delete: []string{"dev/static/postgres-dependencies.yaml", depsIndex}},
			indexes:    map[string][]string{kratixDeps: {"dev/static/postgres-dependencies.yaml"}},
			wantDelete: []string{"dev/static/postgres-dependencies.yaml", depsIndex},
		},
		{
			name:       "but not that of another promise",
			change:     Change{Delete: []string{"dev/static/postgres-dependencies.yaml", depsIndex}},
			indexes:    map[string][]string{kratixOtherDeps: {"dev/static/postgres-dependencies.yaml"}},
			wantDelete: []string{depsIndex},
			wantSpared: []Spared{{Path: "dev/static/postgres-dependencies.yaml", Index: kratixOtherDeps}},
		},
		{
			name:       "nothing listed elsewhere: the change is as it was",
			change:     Change{Delete: []string{"dev/team-a.yaml", redisIndex, "dev/resources/x/"}},
			indexes:    map[string][]string{redisIndex: {"dev/team-a.yaml"}},
			wantDelete: []string{"dev/team-a.yaml", redisIndex, "dev/resources/x/"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, spared := KeepListed(tt.change, tt.indexes)
			if !reflect.DeepEqual(got.Delete, tt.wantDelete) {
				t.Errorf("deletes %v, want %v", got.Delete, tt.wantDelete)
			}
			if !reflect.DeepEqual(spared, tt.wantSpared) {
				t.Errorf("spared %+v, want %+v", spared, tt.wantSpared)
			}
		})
	}
}

func TestIndexDirs(t *testing.T) {
	c := Change{Put: map[string][]byte{"a/.kratix/x.yaml": nil, "a/x.yaml": nil}, Delete: []string{"b/.kratix/y.yaml", "b/y.yaml", "c/"}}
	if got, want := IndexDirs(c), []string{"a/.kratix/", "b/.kratix/"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestIndexOwner(t *testing.T) {
	tests := []struct {
		index string
		want  Owner
		ok    bool
	}{
		{pgIndex, "request postgres/default/team-a", true},
		{"x/.kratix/team-ns-my.db_a.b_team-ns_deploy.v2.dev.eu-5058f.yaml", "request my.db/team-ns/a.b", true},
		{depsIndex, `promise "postgres"`, true},
		{"dev/.kratix/default-postgres-team-a-default-instance-configure-ab12c.dev-5058f.yaml", "", false},
	}
	for _, tt := range tests {
		got, ok := IndexOwner(tt.index)
		if got != tt.want || ok != tt.ok {
			t.Errorf("IndexOwner(%q) = %q, %v; want %q, %v", tt.index, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCollisionDetailNamesBothOwners(t *testing.T) {
	pg, redis := RequestOwner("default", "postgres", "team-a"), RequestOwner("default", "redis", "team-a")
	for _, c := range []Collision{
		{Location: locA, Path: "dev/team-a.yaml", Other: pg},
		{Location: locA, Path: "dev/team-a.yaml", Other: pg, Index: pgIndex},
	} {
		d := CollisionDetail(redis, "dev", c)
		for _, want := range []string{"Request redis/default/team-a", "request postgres/default/team-a", `"dev/team-a.yaml"`, locA, `destination "dev"`} {
			if !strings.Contains(d, want) {
				t.Errorf("%q lacks %q", d, want)
			}
		}
	}
	d := CollisionDetail(redis, "dev", Collision{Location: locA, Path: "dev/team-a.yaml", Index: "dev/.kratix/default-x-ab12c.dev-5058f.yaml"})
	if !strings.Contains(d, "default-x-ab12c") {
		t.Errorf("%q does not name the index file", d)
	}
}
