package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// schemaVersions is every resource's schema version, written out here so that a bump cannot go
// unnoticed: bumping one means adding an upgrader (see the package doc, "Changing a schema's shape") and, below, a case holding a
// state JSON saved under the version before.
var schemaVersions = map[string]int64{
	"kratix_state_store":      0,
	"kratix_destination":      0,
	"kratix_promise":          0,
	"kratix_resource_request": 1,
}

// upgradeCases are states as earlier versions of the provider saved them, and what they must
// read as today. The version-0 ones were saved before the `timeouts` block existed: they come
// back as they were, with timeouts null (and a promise's or a request's `guard`, added later
// without a version bump, null too).
var upgradeCases = []struct {
	name, typeName string
	version        int64
	saved          string // the state JSON as Terraform keeps it
	want           string // the state as it must read today
}{
	{
		name: "state store before timeouts", typeName: "kratix_state_store", version: 0,
		saved: `{"id":"s","name":"s","path":"platform","secret_ref":"s",
			"bucket":{"endpoint":"minio.local:9000","bucket_name":"kratix","insecure":true,"region":null,"auth_method":"accessKey","create_bucket":false},
			"git":null}`,
		want: `{"id":"s","name":"s","path":"platform","secret_ref":"s",
			"bucket":{"endpoint":"minio.local:9000","bucket_name":"kratix","insecure":true,"region":null,"auth_method":"accessKey","create_bucket":false},
			"git":null,"timeouts":null}`,
	},
	{
		name: "destination before timeouts", typeName: "kratix_destination", version: 0,
		saved: `{"id":"worker","name":"worker","labels":{"env":"dev"},
			"state_store":{"name":"s","path":null,"secret_ref":null,"bucket":null,
				"git":{"url":"https://git.local/org/repo","branch":"main","author":{"name":"kratix","email":""},"insecure_ignore_host_key":false}},
			"path":"worker","strict_match_labels":false,"filepath_mode":"nestedByMetadata","aggregated_filename":"aggregated.yaml",
			"init_workloads":true,"cleanup":"none","root":"worker",
			"files":{"worker/dependencies/kratix-canary-namespace.yaml":"0f1e","worker/resources/kratix-canary-configmap.yaml":"9a8b"},
			"instance_id":"4c1d"}`,
		want: `{"id":"worker","name":"worker","labels":{"env":"dev"},
			"state_store":{"name":"s","path":null,"secret_ref":null,"bucket":null,
				"git":{"url":"https://git.local/org/repo","branch":"main","author":{"name":"kratix","email":""},"insecure_ignore_host_key":false}},
			"path":"worker","strict_match_labels":false,"filepath_mode":"nestedByMetadata","aggregated_filename":"aggregated.yaml",
			"init_workloads":true,"cleanup":"none","root":"worker",
			"files":{"worker/dependencies/kratix-canary-namespace.yaml":"0f1e","worker/resources/kratix-canary-configmap.yaml":"9a8b"},
			"instance_id":"4c1d","timeouts":null}`,
	},
	{
		name: "promise before timeouts", typeName: "kratix_promise", version: 0,
		saved: `{"id":"app","name":"app","destination_selectors":null,"dependencies":"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n",
			"destinations":[{"name":"worker","instance_id":"4c1d","labels":null,"state_store":{"name":"s","path":null,"secret_ref":null,
				"bucket":{"endpoint":"minio.local:9000","bucket_name":"kratix","insecure":true,"region":null,"auth_method":"accessKey"},"git":null},
				"path":"worker","strict_match_labels":false,"filepath_mode":"nestedByMetadata","aggregated_filename":"aggregated.yaml"}],
			"on_unschedule":"keep","scheduled_destinations":["worker"],"misscheduled_destinations":[],
			"placements":{"worker":{"store":"s","location":"s3://minio.local:9000/kratix","root":"worker","misscheduled":false,
				"files":{"worker/dependencies/app/5058f/static/app-dependencies.yaml":"77aa"}}}}`,
		want: `{"id":"app","name":"app","destination_selectors":null,"dependencies":"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n",
			"destinations":[{"name":"worker","instance_id":"4c1d","labels":null,"state_store":{"name":"s","path":null,"secret_ref":null,
				"bucket":{"endpoint":"minio.local:9000","bucket_name":"kratix","insecure":true,"region":null,"auth_method":"accessKey"},"git":null},
				"path":"worker","strict_match_labels":false,"filepath_mode":"nestedByMetadata","aggregated_filename":"aggregated.yaml"}],
			"on_unschedule":"keep","scheduled_destinations":["worker"],"misscheduled_destinations":[],
			"placements":{"worker":{"store":"s","location":"s3://minio.local:9000/kratix","root":"worker","misscheduled":false,
				"files":{"worker/dependencies/app/5058f/static/app-dependencies.yaml":"77aa"}}},"guard":null,"timeouts":null}`,
	},
	{
		// min_wait and the times of rollout_status were plain strings then; their types now
		// (timetypes.GoDuration, timetypes.RFC3339) read the same text, unchanged: "60m" stays
		// "60m", not "1h0m0s".
		name: "promise in a rollout, before the time types", typeName: "kratix_promise", version: 0,
		saved: `{"id":"app","name":"app","destination_selectors":null,"dependencies":"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n",
			"destinations":[],"on_unschedule":"keep","scheduled_destinations":["worker"],"misscheduled_destinations":[],
			"placements":{},
			"rollout":{"waves":[{"name":"dev","destination_selectors":[{"match_labels":{"env":"dev"},"match_expressions":null}],"max_destinations":null,"max_percent":null},
				{"name":"rest","destination_selectors":null,"max_destinations":null,"max_percent":null}],"min_wait":"60m","paused":null},
			"revisions":{"worker":"0123456789ab"},
			"rollout_status":{"revision":"0123456789ab","completed_revision":"ba9876543210","waves_done":1,"next_wave":"rest",
				"next_wave_not_before":"2026-11-26T11:00:00Z","waiting":["prod"],"waves":{"worker":"dev","prod":"rest"},
				"last_wave_at":"2026-11-26T10:00:00Z","checked_at":"2026-11-26T10:00:00Z"}}`,
		want: `{"id":"app","name":"app","destination_selectors":null,"dependencies":"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n",
			"destinations":[],"on_unschedule":"keep","scheduled_destinations":["worker"],"misscheduled_destinations":[],
			"placements":{},
			"rollout":{"waves":[{"name":"dev","destination_selectors":[{"match_labels":{"env":"dev"},"match_expressions":null}],"max_destinations":null,"max_percent":null},
				{"name":"rest","destination_selectors":null,"max_destinations":null,"max_percent":null}],"min_wait":"60m","paused":null},
			"revisions":{"worker":"0123456789ab"},
			"rollout_status":{"revision":"0123456789ab","completed_revision":"ba9876543210","waves_done":1,"next_wave":"rest",
				"next_wave_not_before":"2026-11-26T11:00:00Z","waiting":["prod"],"waves":{"worker":"dev","prod":"rest"},
				"last_wave_at":"2026-11-26T10:00:00Z","checked_at":"2026-11-26T10:00:00Z"},"guard":null,"timeouts":null}`,
	},
	{
		name: "request before timeouts", typeName: "kratix_resource_request", version: 0,
		saved: `{"id":"app/default/one","promise":{"name":"app","destination_selectors":null,"destinations":[]},
			"name":"one","namespace":"default","pipeline":"instance-configure","documents":null,"files":{"one.yaml":"kind: ConfigMap\n"},
			"destination_selectors":null,"destination":"worker","misscheduled":false,"location":"s3://minio.local:9000/kratix",
			"root":"worker","written_files":{"worker/resources/default/app/one/instance-configure/5058f/one.yaml":"33cc"}}`,
		want: `{"id":"app/default/one","promise":{"name":"app","destination_selectors":null,"destinations":[]},
			"name":"one","namespace":"default","pipeline":"instance-configure","documents":null,"files":{"one.yaml":"kind: ConfigMap\n"},
			"destination_selectors":null,"destination":"worker","misscheduled":false,"location":"s3://minio.local:9000/kratix",
			"root":"worker","written_files":{"worker/resources/default/app/one/instance-configure/5058f/one.yaml":"33cc"},"guard":null,"timeouts":null,
			"destinations":["worker"]}`,
	},
	{
		// Version 1 added `destinations`: a request saved before is on its one destination, or
		// on none.
		name: "request on no destination, before destinations", typeName: "kratix_resource_request", version: 0,
		saved: `{"id":"app/default/one","promise":{"name":"app","destination_selectors":null,"destinations":[]},
			"name":"one","namespace":"default","pipeline":"instance-configure","documents":null,"files":{"one.yaml":"kind: ConfigMap\n"},
			"destination_selectors":null,"tolerations":null,"destination":null,"misscheduled":false,"location":null,
			"root":null,"written_files":{},"guard":null}`,
		want: `{"id":"app/default/one","promise":{"name":"app","destination_selectors":null,"destinations":[]},
			"name":"one","namespace":"default","pipeline":"instance-configure","documents":null,"files":{"one.yaml":"kind: ConfigMap\n"},
			"destination_selectors":null,"tolerations":null,"destination":null,"misscheduled":false,"location":null,
			"root":null,"written_files":{},"guard":null,"timeouts":null,"destinations":[],"replicas":null,"spread":null,"placements":null}`,
	},
	{
		name: "request with replicas", typeName: "kratix_resource_request", version: 1,
		saved: `{"id":"app/default/one","promise":{"name":"app","destination_selectors":null,"destinations":[]},
			"name":"one","namespace":"default","pipeline":"instance-configure","documents":null,"files":{"one.yaml":"kind: ConfigMap\n"},
			"destination_selectors":null,"tolerations":null,"replicas":2,"spread":{"topology_key":"zone"},"destination":"a","misscheduled":false,
			"location":"s3://minio.local:9000/kratix","root":"a","written_files":{"a/resources/default/app/one/instance-configure/5058f/one.yaml":"33cc"},
			"destinations":["a","b"],"placements":{
				"a":{"store":"s","location":"s3://minio.local:9000/kratix","root":"a","misscheduled":false,"files":{"a/resources/default/app/one/instance-configure/5058f/one.yaml":"33cc"}},
				"b":{"store":"s","location":"s3://minio.local:9000/kratix","root":"b","misscheduled":false,"files":{"b/resources/default/app/one/instance-configure/5058f/one.yaml":"33cc"}}},
			"guard":null}`,
		want: `{"id":"app/default/one","promise":{"name":"app","destination_selectors":null,"destinations":[]},
			"name":"one","namespace":"default","pipeline":"instance-configure","documents":null,"files":{"one.yaml":"kind: ConfigMap\n"},
			"destination_selectors":null,"tolerations":null,"replicas":2,"spread":{"topology_key":"zone"},"destination":"a","misscheduled":false,
			"location":"s3://minio.local:9000/kratix","root":"a","written_files":{"a/resources/default/app/one/instance-configure/5058f/one.yaml":"33cc"},
			"destinations":["a","b"],"placements":{
				"a":{"store":"s","location":"s3://minio.local:9000/kratix","root":"a","misscheduled":false,"files":{"a/resources/default/app/one/instance-configure/5058f/one.yaml":"33cc"}},
				"b":{"store":"s","location":"s3://minio.local:9000/kratix","root":"b","misscheduled":false,"files":{"b/resources/default/app/one/instance-configure/5058f/one.yaml":"33cc"}}},
			"guard":null,"timeouts":null}`,
	},
}

// TestUpgradeState feeds saved states through the provider's UpgradeResourceState, as Terraform
// does with every state it loads, and compares what comes back with the state written out by hand.
func TestUpgradeState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	server, err := verifiedServer("test")() // as served, in verify mode: it answers current-version promise states itself
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || len(schemas.Diagnostics) > 0 {
		t.Fatalf("GetProviderSchema: %v %v", err, schemas.Diagnostics)
	}
	// Every resource's version is the one written above, and every version up to it has a case.
	for name, s := range schemas.ResourceSchemas {
		want, ok := schemaVersions[name]
		if !ok || s.Version != want {
			t.Errorf("%s: schema version %d, the test expects %d: a bump needs an upgrader from the previous version and a case in upgradeCases", name, s.Version, want)
			continue
		}
		for v := int64(0); v <= s.Version; v++ {
			covered := false
			for _, c := range upgradeCases {
				covered = covered || c.typeName == name && c.version == v
			}
			if !covered {
				t.Errorf("%s: no upgrade case for a state saved at version %d", name, v)
			}
		}
	}
	for _, c := range upgradeCases {
		t.Run(c.name, func(t *testing.T) {
			if strings.Contains(c.saved, `"timeouts"`) {
				t.Fatal("a version-0 state saved before the block existed has no timeouts key")
			}
			typ := schemas.ResourceSchemas[c.typeName].ValueType()
			resp, err := server.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
				TypeName: c.typeName, Version: c.version, RawState: &tfprotov6.RawState{JSON: []byte(c.saved)},
			})
			if err != nil || len(resp.Diagnostics) > 0 {
				t.Fatalf("UpgradeResourceState: %v %v", err, diagnosticsText(resp.Diagnostics))
			}
			got, err := resp.UpgradedState.Unmarshal(typ)
			if err != nil {
				t.Fatal(err)
			}
			want, err := tftypes.ValueFromJSONWithOpts([]byte(c.want), typ, tftypes.ValueFromJSONOpts{})
			if err != nil {
				t.Fatalf("the expected state does not fit the schema: %v", err)
			}
			if diffs, err := want.Diff(got); err != nil || len(diffs) > 0 {
				t.Errorf("upgraded state differs from the expected one (%v):", err)
				for _, d := range diffs {
					t.Errorf("  %s: got %v, want %v", d.Path, d.Value2, d.Value1)
				}
			}
		})
	}
}

func diagnosticsText(diags []*tfprotov6.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(d.Summary + ": " + d.Detail + "\n")
	}
	return b.String()
}

// TestAccTimeouts_stateSavedBeforeTheBlock: a state saved by a provider without the `timeouts`
// block (the key absent from every instance, as Terraform keeps it) plans no change with the real
// CLI, and an apply of that plan writes nothing.
func TestAccTimeouts_stateSavedBeforeTheBlock(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	config := strings.Replace(timeoutsConfig(ts, map[string]string{}),
		`provider "kratix" {`, "terraform {\n  required_providers {\n    kratix = { source = \"promise-platform/kratix\" }\n  }\n}\n\nprovider \"kratix\" {", 1)
	c := newCLI(t, map[string]string{"main.tf": config})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	// Take the key out, as a state saved before the block existed does not have it.
	file := filepath.Join(c.dir, "terraform.tfstate")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]any
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	stripped := 0
	for _, r := range state["resources"].([]any) {
		for _, inst := range r.(map[string]any)["instances"].([]any) {
			attrs := inst.(map[string]any)["attributes"].(map[string]any)
			if _, ok := attrs["timeouts"]; ok {
				delete(attrs, "timeouts")
				stripped++
			}
			typ := r.(map[string]any)["type"].(string)
			if v := inst.(map[string]any)["schema_version"]; v != float64(schemaVersions[typ]) {
				t.Errorf("%v: saved with schema version %v, want %d", typ, v, schemaVersions[typ])
			}
			if typ == "kratix_resource_request" {
				// As version 0 saved it, before replicas.
				for _, k := range []string{"destinations", "replicas", "spread", "placements"} {
					delete(attrs, k)
				}
				inst.(map[string]any)["schema_version"] = 0
			}
		}
	}
	if stripped != len(timeoutsResources) {
		t.Fatalf("took timeouts out of %d instances, want %d", stripped, len(timeoutsResources))
	}
	raw, _ = json.Marshal(state)
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	before := ts.mark(t)
	// Without a refresh too: the upgrade alone must make the state read as the configuration plans.
	for _, args := range [][]string{{"plan", "-detailed-exitcode", "-refresh=false"}, {"plan", "-detailed-exitcode"}} {
		out, err := c.run(args...)
		if err != nil || !strings.Contains(out, "No changes.") {
			t.Fatalf("%v on a state saved before the timeouts block (and before a request's destinations) should find no changes (err %v):\n%s", args, err, out)
		}
	}
	if w := ts.writesSince(t, before); len(w) > 0 {
		t.Errorf("planning wrote to the store: %v", w)
	}
}
