package health

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestParse: the HealthRecords of a file, other documents skipped.
func TestParse(t *testing.T) {
	const file = "health/worker-1/redis.yaml"
	tests := []struct {
		name string
		src  string
		want []Record
	}{
		{
			name: "a promise's record",
			src: `apiVersion: platform.kratix.io/v1alpha1
kind: HealthRecord
metadata: {name: redis, namespace: default}
data:
  promiseRef: {name: redis}
  state: healthy
  lastRun: 1764230400
`,
			want: []Record{{Promise: "redis", State: "healthy", LastRun: time.Date(2025, 11, 27, 8, 0, 0, 0, time.UTC), Source: file}},
		},
		{
			name: "a request's record with details",
			src: `apiVersion: platform.kratix.io/v1alpha1
kind: HealthRecord
metadata: {name: my-db}
data:
  promiseRef: {name: postgres}
  resourceRef: {name: my-db, namespace: team-a, generation: 3}
  state: degraded
  lastRun: 1700000000
  details:
    flux:
      lastAppliedRevision: main@sha1:0123456789ABCDEF0123456789abcdef01234567
`,
			want: []Record{{
				Promise:  "postgres",
				Resource: ResourceRef{Name: "my-db", Namespace: "team-a", Generation: 3},
				State:    "degraded",
				LastRun:  time.Date(2023, 11, 14, 22, 13, 20, 0, time.UTC),
				Revision: "0123456789abcdef0123456789abcdef01234567",
				Source:   file,
			}},
		},
		{
			name: "other kinds, other versions, lists, scalars and empty documents are skipped",
			src: `# a comment only
---
apiVersion: v1
kind: ConfigMap
metadata: {name: x}
data: {state: broken}
---
---
apiVersion: platform.kratix.io/v1alpha1
kind: HealthRecord
data: {promiseRef: {name: first}, state: ready, lastRun: 10}
---
apiVersion: platform.kratix.io/v1beta1
kind: HealthRecord
data: {state: nonsense}
---
apiVersion: platform.kratix.io/v1alpha1
kind: Promise
data: {state: nonsense}
---
- a list
---
just text
---
apiVersion: platform.kratix.io/v1alpha1
kind: HealthRecord
data: {promiseRef: {name: second}, resourceRef: {name: r}, state: unhealthy}
`,
			want: []Record{
				{Promise: "first", State: "ready", LastRun: time.Date(1970, 1, 1, 0, 0, 10, 0, time.UTC), Source: file},
				{Promise: "second", Resource: ResourceRef{Name: "r"}, State: "unhealthy", Source: file},
			},
		},
		{
			name: "a missing or null state is unknown; lastRun 0 or null is absent",
			src: `apiVersion: platform.kratix.io/v1alpha1
kind: HealthRecord
data: {promiseRef: {name: a}, lastRun: 0}
---
apiVersion: platform.kratix.io/v1alpha1
kind: HealthRecord
data: {promiseRef: {name: b}, state: null, lastRun: ~}
`,
			want: []Record{
				{Promise: "a", State: "unknown", Source: file},
				{Promise: "b", State: "unknown", Source: file},
			},
		},
		{
			name: "every state Kratix allows",
			src: `{apiVersion: platform.kratix.io/v1alpha1, kind: HealthRecord, data: {promiseRef: {name: p}, state: unknown}}
---
{apiVersion: platform.kratix.io/v1alpha1, kind: HealthRecord, data: {promiseRef: {name: p}, state: ready}}
---
{apiVersion: platform.kratix.io/v1alpha1, kind: HealthRecord, data: {promiseRef: {name: p}, state: unhealthy}}
---
{apiVersion: platform.kratix.io/v1alpha1, kind: HealthRecord, data: {promiseRef: {name: p}, state: healthy}}
---
{apiVersion: platform.kratix.io/v1alpha1, kind: HealthRecord, data: {promiseRef: {name: p}, state: degraded}}
`,
			want: []Record{
				{Promise: "p", State: "unknown", Source: file},
				{Promise: "p", State: "ready", Source: file},
				{Promise: "p", State: "unhealthy", Source: file},
				{Promise: "p", State: "healthy", Source: file},
				{Promise: "p", State: "degraded", Source: file},
			},
		},
		{
			name: "JSON, aliases, hexadecimal lastRun and a numeric-looking name",
			src: `{"apiVersion": "platform.kratix.io/v1alpha1", "kind": "HealthRecord", "data": {"promiseRef": {"name": "j"}, "state": "healthy", "lastRun": 60}}
---
apiVersion: platform.kratix.io/v1alpha1
kind: HealthRecord
metadata: {name: &n "0123"}
data:
  promiseRef: {name: *n}
  lastRun: 0x3c
`,
			want: []Record{
				{Promise: "j", State: "healthy", LastRun: time.Date(1970, 1, 1, 0, 1, 0, 0, time.UTC), Source: file},
				{Promise: "0123", State: "unknown", LastRun: time.Date(1970, 1, 1, 0, 1, 0, 0, time.UTC), Source: file},
			},
		},
		{name: "an empty file", src: "", want: nil},
		{name: "text that is YAML but no object", src: "hello world\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(file, []byte(tt.src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse:\n got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// TestParse_errors: each fault a user can fix, named with the file, the document and the line.
func TestParse_errors(t *testing.T) {
	const file = "health/worker-2/db.yaml"
	const head = "apiVersion: platform.kratix.io/v1alpha1\nkind: HealthRecord\n"
	// The first document of each source is a good record or another kind, so that the index
	// counts documents and not records.
	const good = "apiVersion: v1\nkind: ConfigMap\n---\n"
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "no data",
			src:  good + head,
			want: `health record file "health/worker-2/db.yaml", document 2 (line 4): data.promiseRef.name is missing: a HealthRecord must name the promise it reports on`,
		},
		{
			name: "no promise name",
			src:  good + head + "data:\n  promiseRef: {}\n  state: healthy\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 4): data.promiseRef.name is missing: a HealthRecord must name the promise it reports on`,
		},
		{
			name: "empty promise name",
			src:  good + head + "data: {promiseRef: {name: ''}}\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 4): data.promiseRef.name is missing: a HealthRecord must name the promise it reports on`,
		},
		{
			name: "promiseRef a string",
			src:  good + head + "data:\n  promiseRef: redis\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 7): data.promiseRef is the string "redis"; it must be a mapping`,
		},
		{
			name: "data a list",
			src:  good + head + "data: [a]\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 6): data is a list; it must be a mapping`,
		},
		{
			name: "promise name a mapping",
			src:  good + head + "data: {promiseRef: {name: {a: b}}}\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 6): data.promiseRef.name is a mapping; it must be a string`,
		},
		{
			name: "state outside the five",
			src:  good + head + "data:\n  promiseRef: {name: redis}\n  state: Healthy\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 8): data.state is "Healthy"; it must be one of unknown, ready, unhealthy, healthy, degraded`,
		},
		{
			name: "state empty",
			src:  good + head + "data:\n  promiseRef: {name: redis}\n  state: ''\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 8): data.state is ""; it must be one of unknown, ready, unhealthy, healthy, degraded`,
		},
		{
			name: "lastRun a date",
			src:  good + head + "data:\n  promiseRef: {name: redis}\n  lastRun: 2025-11-27T08:00:00Z\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 8): data.lastRun is 2025-11-27T08:00:00Z; it must be an integer number of seconds since 1970 (Unix time)`,
		},
		{
			name: "lastRun quoted",
			src:  good + head + "data:\n  promiseRef: {name: redis}\n  lastRun: \"1764230400\"\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 8): data.lastRun is the string "1764230400"; it must be an integer number of seconds since 1970 (Unix time)`,
		},
		{
			name: "lastRun a float",
			src:  good + head + "data:\n  promiseRef: {name: redis}\n  lastRun: 1764230400.5\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 8): data.lastRun is 1764230400.5; it must be an integer number of seconds since 1970 (Unix time)`,
		},
		{
			name: "lastRun negative",
			src:  good + head + "data:\n  promiseRef: {name: redis}\n  lastRun: -5\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 8): data.lastRun is -5; it must be an integer number of seconds since 1970 (Unix time)`,
		},
		{
			name: "lastRun beyond 64 bits",
			src:  good + head + "data:\n  promiseRef: {name: redis}\n  lastRun: 99999999999999999999\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 8): data.lastRun is 99999999999999999999; it must be an integer number of seconds since 1970 (Unix time)`,
		},
		{
			name: "lastRun a list",
			src:  good + head + "data:\n  promiseRef: {name: redis}\n  lastRun: [1]\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 8): data.lastRun is a list; it must be an integer number of seconds since 1970 (Unix time)`,
		},
		{
			name: "resourceRef a string",
			src:  good + head + "data:\n  promiseRef: {name: redis}\n  resourceRef: my-db\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 8): data.resourceRef is the string "my-db"; it must be a mapping`,
		},
		{
			name: "resourceRef name a list",
			src:  good + head + "data:\n  promiseRef: {name: redis}\n  resourceRef: {name: [a]}\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 8): data.resourceRef.name is a list; it must be a string`,
		},
		{
			name: "resourceRef namespace a mapping",
			src:  good + head + "data:\n  promiseRef: {name: redis}\n  resourceRef: {name: a, namespace: {}}\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 8): data.resourceRef.namespace is a mapping; it must be a string`,
		},
		{
			name: "generation text",
			src:  good + head + "data:\n  promiseRef: {name: redis}\n  resourceRef: {name: a, generation: three}\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 8): data.resourceRef.generation is the string "three"; it must be an integer`,
		},
		{
			name: "state a list",
			src:  good + head + "data:\n  promiseRef: {name: redis}\n  state: [healthy]\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 8): data.state is a list; it must be a string`,
		},
		{
			name: "not YAML: a broken flow mapping",
			src:  "{\"not\": yaml",
			want: `health record file "health/worker-2/db.yaml", document 1 (line 1): invalid YAML: did not find expected ',' or '}'`,
		},
		{
			name: "not YAML: binary",
			src:  "PK\x03\x04\x14\x00\x00\x00",
			want: `health record file "health/worker-2/db.yaml", document 1: invalid YAML: control characters are not allowed`,
		},
		{
			name: "broken YAML in a later document",
			src:  good + "kind: [\n",
			want: `health record file "health/worker-2/db.yaml", document 2 (line 4): invalid YAML: did not find expected node content`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(file, []byte(tt.src))
			if err == nil {
				t.Fatalf("Parse returned %#v and no error; want %s", got, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse error:\n got %s\nwant %s", err, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.File != file {
				t.Errorf("Parse error %#v is not an *Error for %s", err, file)
			}
			if got != nil {
				t.Errorf("Parse returned records %#v with its error", got)
			}
		})
	}
}

// TestParse_documentIndex: the index counts non-empty documents of every kind, not separators.
func TestParse_documentIndex(t *testing.T) {
	src := strings.Join([]string{
		"---\n# only a comment\n",
		"apiVersion: v1\nkind: Secret\n",
		"",
		"apiVersion: platform.kratix.io/v1alpha1\nkind: HealthRecord\ndata: {promiseRef: {name: ok}}\n",
		"apiVersion: platform.kratix.io/v1alpha1\nkind: HealthRecord\ndata: {promiseRef: {name: bad}, state: fine}\n",
	}, "---\n")
	_, err := Parse("h/d/x.yml", []byte(src))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Parse error = %v, want an *Error", err)
	}
	if e.Document != 3 || e.Line != 14 {
		t.Errorf("Parse error at document %d line %d, want document 3 line 14 (%v)", e.Document, e.Line, err)
	}
}
