package provider

import (
	"archive/zip"
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
)

// TestAccRequest_writeOnlySecret writes a Kubernetes Secret through documents_wo, with TF_LOG=TRACE,
// and then searches the state file, `terraform show -json`, everything the CLI printed and the
// trace log, and whatever base64 text in them decodes to (private state is base64), for the
// password, its base64 and the MD5s of the password and of the written file: none may appear
// (secrets in written files). Meanwhile the store holds the Secret; the next plan is empty; an
// edit by hand shows as drift and the apply puts the Secret back; a new password shows in the
// plan without being shown; bumping content_wo_version makes an apply that writes the content.
func TestAccRequest_writeOnlySecret(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		first, second := "hunter2-"+randomName("pw"), "hunter3-"+randomName("pw")
		config := func(password string, version int) string {
			return `
terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}
` + promiseConfig(ts, []string{`{ env = "dev" }`}, `  name = "db"
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: db\n"`) + passwordVariable + kratixResourceRequest{
				Label: "r", Promise: "kratix_promise.p", Name: q("creds"), Body: attrLines(
					hclAttr{"content_wo_version", strconv.Itoa(version)},
					hclAttr{"documents_wo", heredoc("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\n  namespace: default\n" +
						"stringData:\n  password: ${var.password}\ntype: Opaque\n")},
				),
			}.String()
		}
		// What the store must hold: the document, canonically serialised (keys sorted).
		want := func(password string) string {
			return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\n  namespace: default\n" +
				"stringData:\n  password: " + password + "\ntype: Opaque\n"
		}
		file := "worker-1/resources/default/db/creds/instance-configure/5058f/creds.yaml"
		logFile := filepath.Join(t.TempDir(), "trace.log")
		c := newCLI(t, map[string]string{"main.tf": config(first, 1)},
			"TF_VAR_password="+first,
			"KRATIX_CONTENT_HASH_KEY="+hex.EncodeToString([]byte(randomName("key")+randomName("key"))),
			"TF_LOG=TRACE", "TF_LOG_PATH="+logFile)
		var printed strings.Builder
		run := func(args ...string) (string, int) {
			t.Helper()
			out, err := c.run(args...)
			printed.WriteString(out)
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
			}
			return out, code
		}
		mustApply := func(what string) {
			t.Helper()
			if out, code := run("apply", "-auto-approve"); code != 0 {
				t.Fatalf("%s: terraform apply failed:\n%s", what, out)
			}
		}
		// planCode is terraform plan -detailed-exitcode: 0 for no change, 2 for changes.
		planCode := func() (string, int) { return run("plan", "-detailed-exitcode") }
		setConfig := func(password string, version int) {
			t.Helper()
			if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config(password, version)), 0o600); err != nil {
				t.Fatal(err)
			}
			c.env = append(c.env, "TF_VAR_password="+password) // the last one wins
		}
		expectStore := func(what, password string) {
			t.Helper()
			got, ok := ts.read(t, file)
			if !ok {
				t.Fatalf("%s: %s is missing from the store", what, file)
			}
			if string(got) != want(password) {
				t.Fatalf("%s: %s holds\n%s\nwant\n%s", what, file, got, want(password))
			}
		}

		mustApply("first apply")
		expectStore("after the first apply", first)
		if out, code := planCode(); code != 0 {
			t.Fatalf("the plan after the first apply is not empty (exit %d):\n%s", code, out)
		}
		state := readState(t, c)
		keyed := regexp.MustCompile(`^hmac:[0-9a-f]{64}$`)
		if v := state.writtenFiles[file]; !keyed.MatchString(v) {
			t.Errorf("written_files[%s] = %q, want a keyed hash hmac:<64 hex digits>", file, v)
		}

		// An edit by hand is drift: the plan shows it, the apply puts the Secret back.
		ts.put(t, file, []byte(want("tampered")))
		if out, code := planCode(); code != 2 || !strings.Contains(out, "written_files") {
			t.Fatalf("an edit by hand should show in the plan's written_files (exit %d):\n%s", code, out)
		}
		mustApply("repair")
		expectStore("after the repair", first)
		// So is a deletion.
		ts.remove(t, file)
		if out, code := planCode(); code != 2 {
			t.Fatalf("a deletion by hand should show in the plan (exit %d):\n%s", code, out)
		}
		mustApply("repair of a deletion")
		expectStore("after the repair of a deletion", first)

		// A new password shows in the plan as a new keyed hash, without showing it.
		before := readState(t, c).writtenFiles[file]
		setConfig(second, 1)
		out, code := planCode()
		if code != 2 || !strings.Contains(out, "written_files") {
			t.Fatalf("a new password should change written_files in the plan (exit %d):\n%s", code, out)
		}
		mustApply("new password")
		expectStore("after the new password", second)
		if after := readState(t, c).writtenFiles[file]; !keyed.MatchString(after) || after == before {
			t.Errorf("written_files[%s] did not change with the password", file)
		}

		// content_wo_version: a bump is a change, and its apply makes the store hold the content.
		ts.put(t, file, []byte(want("tampered-again")))
		setConfig(second, 2)
		if out, code := run("plan", "-detailed-exitcode", "-refresh=false"); code != 2 || !strings.Contains(out, "content_wo_version") {
			t.Fatalf("bumping content_wo_version should plan an update (exit %d):\n%s", code, out)
		}
		mustApply("version bump")
		expectStore("after the version bump", second)
		if out, code := planCode(); code != 0 {
			t.Fatalf("the plan after the version bump is not empty (exit %d):\n%s", code, out)
		}

		show, code := run("show", "-json")
		if code != 0 {
			t.Fatalf("terraform show -json failed:\n%s", show)
		}
		stateFile, err := os.ReadFile(filepath.Join(c.dir, "terraform.tfstate"))
		if err != nil {
			t.Fatal(err)
		}
		if out, code := run("destroy", "-auto-approve"); code != 0 {
			t.Fatalf("terraform destroy failed:\n%s", out)
		}
		if _, ok := ts.read(t, file); ok {
			t.Errorf("destroy left %s", file)
		}
		log, err := os.ReadFile(logFile)
		if err != nil {
			t.Fatal(err)
		}
		if len(log) < 10000 {
			t.Fatalf("the trace log is suspiciously short (%d bytes): is TF_LOG honoured?", len(log))
		}
		md5hex := func(s string) string {
			sum := md5.Sum([]byte(s))
			return hex.EncodeToString(sum[:])
		}
		secrets := map[string]string{}
		for _, pw := range []string{first, second} {
			secrets["password "+pw[:7]] = pw
			secrets["base64 of password "+pw[:7]] = base64.StdEncoding.EncodeToString([]byte(pw))
			secrets["MD5 of password "+pw[:7]] = md5hex(pw)
			secrets["MD5 of the Secret with "+pw[:7]] = md5hex(want(pw))
		}
		for where, text := range map[string]string{"state": string(stateFile), "terraform show -json": show, "CLI output": printed.String(), "TRACE log": string(log)} {
			for what, secret := range secrets {
				if how, found := findNested([]byte(text), []byte(secret), 3); found {
					t.Errorf("the %s appears in the %s%s", what, where, how)
				}
			}
		}
		t.Logf("searched %d bytes of state, %d of show -json, %d of output and %d of TRACE log", len(stateFile), len(show), printed.Len(), len(log))
	})
}

// requestState is what the tests read of the request in a state file.
type requestState struct {
	writtenFiles map[string]string
}

// readState reads kratix_resource_request.r from the working directory's state file.
func readState(t *testing.T, c *cli) requestState {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Resources []struct {
			Type      string `json:"type"`
			Instances []struct {
				Attributes map[string]any `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	out := requestState{writtenFiles: map[string]string{}}
	for _, r := range st.Resources {
		if r.Type != "kratix_resource_request" || len(r.Instances) == 0 {
			continue
		}
		a := r.Instances[0].Attributes
		for _, attr := range []string{"documents_wo", "files_wo"} {
			if a[attr] != nil {
				t.Errorf("state holds %s: %v", attr, a[attr])
			}
		}
		files, _ := a["written_files"].(map[string]any)
		for p, v := range files {
			out.writtenFiles[p], _ = v.(string)
		}
	}
	return out
}

// TestAccRequest_writeOnlyBadInput: write-only content beside its plain counterpart, and
// write-only content without a key for its hashes, are refused at plan with the attribute path.
func TestAccRequest_writeOnlyBadInput(t *testing.T) {
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	doc := `"apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  password: hunter2\n"`
	cfg := func(request string) string {
		return promiseConfig(ts, []string{`{ env = "dev" }`}, `  name = "db"
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: db\n"`) + `
resource "kratix_resource_request" "r" {
  promise = kratix_promise.p
  name    = "creds"
` + request + `
}
`
	}
	t.Setenv(contentHashKeyEnv, "")
	withKey := func(key string) string {
		return strings.Replace(cfg("  documents_wo = "+doc), `provider "kratix" {`, fmt.Sprintf("provider \"kratix\" {\n  content_hash_key = %q", key), 1)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config:      cfg("  documents = " + doc + "\n  documents_wo = " + doc),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Combination.*documents_wo.*documents`),
			},
			{
				Config:      cfg(`  files = { "a.yaml" = "x" }` + "\n" + `  files_wo = { "b.yaml" = "y" }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Combination.*files_wo.*files`),
			},
			{
				Config:      cfg("  documents_wo = " + doc),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Content Hash Key Missing.*documents_wo.*KRATIX_CONTENT_HASH_KEY`),
			},
			{
				Config:      withKey("0123456789"), // too short
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Content Hash Key Too Short.*documents_wo.*at least 16`),
			},
			{
				// The write-only file keys are checked like files' keys, with their path.
				Config: strings.Replace(cfg(`  files_wo = { ".kratix/x.yaml" = "y" }`), `provider "kratix" {`,
					`provider "kratix" {`+"\n  content_hash_key = \"0123456789abcdef0123\"", 1),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid File Key.*files_wo\["\.kratix/x\.yaml"\]`),
			},
			{
				Config:      cfg(`  documents_wo = "apiVersion: v1\nkind: Secret\nstringData:\n  password: hunter2\n"`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid Kubernetes YAML.*documents_wo: document 1 \(line 1\)`),
			},
		},
	})
}

// TestAccRequest_writeOnlyImport: a request with documents_wo is imported with an import block,
// and nothing of that adoption holds an unkeyed hash of the Secret's file. Two ways: the request
// applied, removed from state and imported again (found by this provider's own layout), and a
// request Kratix wrote in mode none (found by Kratix's index file, whose listed files the probe
// hashes). With TF_LOG=TRACE, `terraform plan -out` then `terraform apply` of that plan: every
// byte of every entry of the plan file (the adoption travels in its private state), the state
// file with its private data decoded, everything the CLI printed and the trace log are searched,
// through any base64 nesting, for the MD5 of the file's bytes, as read back from the store with
// an independent client and hashed here, in hex and in base64 (the form of Content-MD5 headers).
func TestAccRequest_writeOnlyImport(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		for _, from := range []string{"own", "kratix"} {
			t.Run(from, func(t *testing.T) { testWriteOnlyImport(t, kind, from == "kratix") })
		}
	})
}

func testWriteOnlyImport(t *testing.T, kind string, fromKratix bool) {
	requireAcceptance(t)
	ts := newTestStore(t, kind)
	password := "hunter2-" + randomName("pw")
	mode := "nestedByMetadata"
	file := "worker-1/resources/default/db/creds/instance-configure/5058f/creds.yaml"
	if fromKratix {
		mode, file = "none", "worker-1/creds.yaml"
	}
	base := `
terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}
` + storeConfig(ts) + kratixDestination{
		Label: "d", Name: q("worker-1"), Path: q("worker-1"), Labels: `{ env = "dev" }`, FilepathMode: q(mode),
		StateStore: "kratix_state_store.s",
	}.String() + kratixPromise{Label: "p", Name: q("db"), Destinations: "[kratix_destination.d]", Dependencies: q(namespaceDoc("db"))}.String()
	request := `
variable "password" {
  type      = string
  sensitive = true
}

resource "kratix_resource_request" "r" {
  promise      = kratix_promise.p
  name         = "creds"
  documents_wo = <<-EOT
    apiVersion: v1
    kind: Secret
    metadata:
      name: db-credentials
    stringData:
      password: ${var.password}
  EOT
}
`
	logFile := filepath.Join(t.TempDir(), "trace.log")
	c := newCLI(t, map[string]string{"main.tf": base + request},
		"TF_VAR_password="+password,
		"KRATIX_CONTENT_HASH_KEY="+hex.EncodeToString([]byte(randomName("key")+randomName("key"))),
		"TF_LOG=TRACE", "TF_LOG_PATH="+logFile)
	var printed strings.Builder
	run := func(args ...string) string {
		t.Helper()
		out, err := c.run(args...)
		printed.WriteString(out)
		if err != nil {
			t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	writeFile := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(c.dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	id := "db/default/creds"
	if fromKratix {
		// The store as Kratix writes it in mode none: the Secret at the destination's root, and
		// the index file named after the WorkPlacement (the Work's five random characters, x7k2p),
		// listing it.
		writeFile("main.tf", base)
		run("apply", "-auto-approve")
		ts.put(t, file, []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\nstringData:\n  password: "+password+"\n"))
		ts.put(t, "worker-1/.kratix/default-db-creds-default-instance-configure-x7k2p.worker-1-5058f.yaml", []byte("files:\n- "+file+"\n"))
		writeFile("main.tf", base+request)
	} else {
		run("apply", "-auto-approve")
		for _, r := range readStateJSON(t, filepath.Join(c.dir, "terraform.tfstate")).Resources {
			if r.Type == "kratix_resource_request" && len(r.Instances) > 0 {
				id, _ = r.Instances[0].Attributes["id"].(string)
			}
		}
		run("state", "rm", "kratix_resource_request.r")
	}
	content, ok := ts.read(t, file)
	if !ok || !strings.Contains(string(content), password) {
		t.Fatalf("the store holds no Secret at %s: %q", file, content)
	}
	sum := md5.Sum(content)
	forms := map[string]string{
		"hex MD5 of the Secret's file":    hex.EncodeToString(sum[:]),
		"base64 MD5 of the Secret's file": base64.StdEncoding.EncodeToString(sum[:]),
	}
	writeFile("import.tf", fmt.Sprintf("import {\n  to = kratix_resource_request.r\n  id = %q\n}\n", id))
	out := run("plan", "-out=tfplan")
	if !strings.Contains(out, "kratix_resource_request.r: Preparing import") || strings.Contains(out, "Imported Request Not Found") {
		t.Fatalf("the import did not find the request where it is:\n%s", out)
	}
	plan, err := zip.OpenReader(filepath.Join(c.dir, "tfplan"))
	if err != nil {
		t.Fatal(err)
	}
	searched := map[string][]byte{}
	for _, f := range plan.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		searched["plan file entry "+f.Name] = b
	}
	_ = plan.Close()
	if _, ok := searched["plan file entry tfplan"]; !ok {
		t.Fatalf("the plan file has no tfplan entry: %v", tfvalue.SortedKeys(searched))
	}
	run("apply", "tfplan")
	if got, _ := ts.read(t, file); !strings.Contains(string(got), "password: "+password) {
		t.Errorf("after the adoption %s holds:\n%s", file, got)
	}
	if code, out := exitCode(c.run("plan", "-detailed-exitcode")); code != 0 {
		t.Errorf("the plan after the adoption is not empty (exit %d):\n%s", code, out)
	}
	stateFile, err := os.ReadFile(filepath.Join(c.dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	searched["state"] = stateFile
	for _, r := range readStateJSON(t, filepath.Join(c.dir, "terraform.tfstate")).Resources {
		for _, in := range r.Instances {
			if private, err := base64.StdEncoding.DecodeString(in.Private); err == nil {
				searched["private state of "+r.Type] = private
			}
		}
	}
	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) < 10000 {
		t.Fatalf("the trace log is suspiciously short (%d bytes): is TF_LOG honoured?", len(log))
	}
	searched["TRACE log"] = log
	searched["CLI output"] = []byte(printed.String())
	for where, b := range searched {
		for what, s := range forms {
			if how, found := findNested(b, []byte(s), 3); found {
				t.Errorf("the %s appears in the %s%s", what, where, how)
			}
		}
	}
}

// base64Run is a run of base64 text long enough to hold an encoded value.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/]{16,}={0,2}`)

// findNested reports whether b holds s as is, or inside base64 text, decoded up to depth times
// (private state is stored as base64 of JSON whose values are base64 again), and says how.
func findNested(b, s []byte, depth int) (string, bool) {
	if bytes.Contains(b, s) {
		return "", true
	}
	if depth == 0 {
		return "", false
	}
	for _, run := range base64Run.FindAll(b, -1) {
		decoded, err := base64.StdEncoding.DecodeString(string(run))
		if err != nil {
			continue
		}
		if how, found := findNested(decoded, s, depth-1); found {
			return " (inside base64" + how + ")", true
		}
	}
	return "", false
}

// stateJSON is what the tests read of a state file.
type stateJSON struct {
	Resources []struct {
		Type      string `json:"type"`
		Instances []struct {
			Attributes map[string]any `json:"attributes"`
			Private    string         `json:"private"`
		} `json:"instances"`
	} `json:"resources"`
}

func readStateJSON(t *testing.T, file string) stateJSON {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var st stateJSON
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// exitCode is the exit code of a command run by cli.run.
func exitCode(out string, err error) (int, string) {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), out
	}
	if err != nil {
		return -1, out + err.Error()
	}
	return 0, out
}
