package provider

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// The builders of the Terraform configurations the acceptance tests apply, one for each object a
// configuration declares, named after it: kratixProviderBlock, kratixStateStore, kratixDestination,
// kratixPromise and kratixResourceRequest. What they write can be read off the call:
//
//   - every field but Label and Body is the HCL expression written after "=" (a reference, a list,
//     an inline object, or a string quoted with q), or an hclObj, written over several lines; a field
//     left empty leaves its attribute out;
//   - attributes come in the order the struct declares them, one a line, aligned on "=" as
//     terraform fmt aligns them (an hclObj ends the run of aligned lines);
//   - Body holds the rest of the block (nested blocks, attributes no field names), written as given
//     after the attributes;
//   - each block starts with a blank line and ends with a newline, so blocks and plain HCL text
//     are joined with +.

// q is s as a quoted HCL string, spelled as %q spells it. HCL reads "${" in it as a template.
func q(s string) string { return strconv.Quote(s) }

// hclAttr is one attribute: Value is an HCL expression (a string) or an hclObj; "" or nil leaves
// the attribute out.
type hclAttr struct {
	Key   string
	Value any
}

// hclObj is an HCL object written over several lines, its attributes in order.
type hclObj []hclAttr

// writeAttrs writes attrs at indent, aligning each run of one-line attributes on "=".
func writeAttrs(b *strings.Builder, indent string, attrs []hclAttr) {
	for i := 0; i < len(attrs); {
		if o, ok := attrs[i].Value.(hclObj); ok {
			b.WriteString(indent + attrs[i].Key + " = {\n")
			writeAttrs(b, indent+"  ", o)
			b.WriteString(indent + "}\n")
			i++
			continue
		}
		j, width := i, 0
		for ; j < len(attrs); j++ {
			if _, ok := attrs[j].Value.(hclObj); ok {
				break
			}
			if v, _ := attrs[j].Value.(string); v != "" {
				width = max(width, len(attrs[j].Key))
			}
		}
		for _, a := range attrs[i:j] {
			if v, _ := a.Value.(string); v != "" {
				fmt.Fprintf(b, "%s%-*s = %s\n", indent, width, a.Key, v)
			}
		}
		i = j
	}
}

// inline is o on one line: { key = value, ... }, its empty attributes left out.
func (o hclObj) inline() string {
	var parts []string
	for _, a := range o {
		switch v := a.Value.(type) {
		case hclObj:
			parts = append(parts, a.Key+" = "+v.inline())
		case string:
			if v != "" {
				parts = append(parts, a.Key+" = "+v)
			}
		}
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// attrLines is attributes of a block's body, at its indentation: the Body of a builder, or of a
// block no builder writes.
func attrLines(attrs ...hclAttr) string {
	var b strings.Builder
	writeAttrs(&b, "  ", attrs)
	return b.String()
}

// heredoc is text as an indented heredoc (<<-EOT) of an attribute of a resource, each line
// indented four spaces and EOT two; text ends with a newline.
func heredoc(text string) string {
	var b strings.Builder
	b.WriteString("<<-EOT\n")
	for _, line := range strings.SplitAfter(text, "\n") {
		if line != "" {
			b.WriteString("    " + line)
		}
	}
	b.WriteString("  EOT")
	return b.String()
}

// block writes `<header> {`, the attributes that are not empty, body, and `}`.
func block(header string, attrs []hclAttr, body string) string {
	var b strings.Builder
	b.WriteString("\n" + header + " {\n")
	writeAttrs(&b, "  ", attrs)
	if body != "" {
		b.WriteString(strings.TrimSuffix(body, "\n") + "\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// kratixProviderBlock is the provider "kratix" block with its secrets, in order; Body holds other
// arguments (offline, destroy_acknowledgements, ...).
type kratixProviderBlock struct {
	Secrets []hclAttr // each an hclObj: bucketSecret, gitHTTPSecret, gitSSHSecret, or written out
	Body    string
}

func (p kratixProviderBlock) String() string {
	return block(`provider "kratix"`, []hclAttr{{"secrets", hclObj(p.Secrets)}}, p.Body)
}

// bucketSecret is secret name with an access key and its secret, both quoted.
func bucketSecret(name, accessKey, secretKey string) hclAttr {
	return hclAttr{name, hclObj{{"access_key_id", q(accessKey)}, {"secret_access_key", q(secretKey)}}}
}

// gitHTTPSecret is secret name with the shared git server's user name and password.
func gitHTTPSecret(name string) hclAttr {
	return hclAttr{name, hclObj{{"username", q(gitServer.Username)}, {"password", q(gitServer.Password)}}}
}

// gitSSHSecret is secret name with the shared git server's SSH key and known hosts.
func gitSSHSecret(name string) hclAttr {
	return hclAttr{name, hclObj{{"ssh_private_key", q(gitServer.SSHPrivateKey)}, {"known_hosts", q(gitServer.KnownHosts)}}}
}

// kratixStateStore is resource "kratix_state_store" "<Label>". Body is the place for a
// testStore's store (its name, secret_ref and connection).
type kratixStateStore struct {
	Label     string
	Name      string
	SecretRef string
	Path      string
	Bucket    any // an expression (bucketAt writes the usual one) or an hclObj
	Git       any // an expression or an hclObj
	Body      string
}

func (s kratixStateStore) attrs() []hclAttr {
	return []hclAttr{{"name", s.Name}, {"secret_ref", s.SecretRef}, {"path", s.Path}, {"bucket", s.Bucket}, {"git", s.Git}}
}

// body is what the block holds between its braces: the shape of testStore.store.
func (s kratixStateStore) body() string {
	var b strings.Builder
	writeAttrs(&b, "  ", s.attrs())
	return b.String() + s.Body
}

// inline is the store as a literal state_store object, on one line (Body left out).
func (s kratixStateStore) inline() string { return hclObj(s.attrs()).inline() }

func (s kratixStateStore) String() string {
	return block(`resource "kratix_state_store" `+q(s.Label), s.attrs(), s.Body)
}

// bucketAt is the bucket object of a store reached over plain HTTP: bucket on endpoint.
func bucketAt(endpoint, bucket string) string {
	return fmt.Sprintf("{ endpoint = %s, bucket_name = %s, insecure = true }", q(endpoint), q(bucket))
}

// storeConfig is the provider block of test store ts and the store itself as
// kratix_state_store.s: the head of most acceptance tests' configurations.
func storeConfig(ts *testStore) string {
	return ts.provider + kratixStateStore{Label: "s", Body: ts.store}.String()
}

// kratixDestination is resource "kratix_destination" "<Label>".
type kratixDestination struct {
	Label              string
	Count              string
	ForEach            string
	Name               string
	Path               string
	FilepathMode       string
	AggregatedFilename string
	InitWorkloads      string
	Cleanup            string
	Labels             string
	StateStore         string
	Body               string
}

func (d kratixDestination) String() string {
	return block(`resource "kratix_destination" `+q(d.Label), []hclAttr{
		{"count", d.Count}, {"for_each", d.ForEach}, {"name", d.Name}, {"path", d.Path},
		{"filepath_mode", d.FilepathMode}, {"aggregated_filename", d.AggregatedFilename},
		{"init_workloads", d.InitWorkloads}, {"cleanup", d.Cleanup}, {"labels", d.Labels},
		{"state_store", d.StateStore},
	}, d.Body)
}

// kratixPromise is resource "kratix_promise" "<Label>".
type kratixPromise struct {
	Label                string
	Count                string
	Name                 string
	Destinations         string
	DestinationSelectors string
	OnUnschedule         string
	Dependencies         string
	Observe              string
	Body                 string
}

func (p kratixPromise) String() string {
	return block(`resource "kratix_promise" `+q(p.Label), []hclAttr{
		{"count", p.Count}, {"name", p.Name}, {"destinations", p.Destinations},
		{"destination_selectors", p.DestinationSelectors}, {"on_unschedule", p.OnUnschedule},
		{"dependencies", p.Dependencies}, {"observe", p.Observe},
	}, p.Body)
}

// kratixResourceRequest is resource "kratix_resource_request" "<Label>".
type kratixResourceRequest struct {
	Label                string
	Count                string
	Promise              string
	Name                 string
	Namespace            string
	DestinationSelectors string
	Documents            string
	Files                any // an expression or an hclObj
	Replicas             string
	Observe              string
	Body                 string
}

func (r kratixResourceRequest) String() string {
	return block(`resource "kratix_resource_request" `+q(r.Label), []hclAttr{
		{"count", r.Count}, {"promise", r.Promise}, {"name", r.Name}, {"namespace", r.Namespace},
		{"destination_selectors", r.DestinationSelectors}, {"documents", r.Documents}, {"files", r.Files},
		{"replicas", r.Replicas}, {"observe", r.Observe},
	}, r.Body)
}

// passwordVariable declares var.password, a sensitive string.
const passwordVariable = `
variable "password" {
  type      = string
  sensitive = true
}
`

// fileAt is the call file("<path>"): the content of the local file at path.
func fileAt(path string) string { return "file(" + q(path) + ")" }

// lifecycleCreateBeforeDestroy is the Body of a resource replaced create_before_destroy.
const lifecycleCreateBeforeDestroy = `  lifecycle {
    create_before_destroy = true
  }
`

// matchLabels is a destination_selectors list of one selector: match_labels = { key = "value" }.
func matchLabels(key, value string) string {
	return fmt.Sprintf("[{ match_labels = { %s = %s } }]", key, q(value))
}

// namespaceDoc is the document of a Namespace called name, written out by hand.
func namespaceDoc(name string) string {
	return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + name + "\n"
}

// configMapDoc is the document of a ConfigMap called name, written out by hand.
func configMapDoc(name string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
}

// TestConfigBuilders pins what the builders write, spelled out by hand.
func TestConfigBuilders(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, got, want string }{
		{"provider", kratixProviderBlock{Secrets: []hclAttr{bucketSecret("s", "k", "v")}}.String(), `
provider "kratix" {
  secrets = {
    s = {
      access_key_id     = "k"
      secret_access_key = "v"
    }
  }
}
`},
		{"store body", kratixStateStore{Name: q("b"), SecretRef: q("s"), Path: q("team"),
			Bucket: hclObj{{"endpoint", q("127.0.0.1:9000")}, {"bucket_name", q("b")}, {"insecure", "true"}}}.body(), `  name       = "b"
  secret_ref = "s"
  path       = "team"
  bucket = {
    endpoint    = "127.0.0.1:9000"
    bucket_name = "b"
    insecure    = true
  }
`},
		{"store", kratixStateStore{Label: "one", Name: q("one"), SecretRef: q("one"), Bucket: bucketAt("127.0.0.1:9000", "fault")}.String(), `
resource "kratix_state_store" "one" {
  name       = "one"
  secret_ref = "one"
  bucket     = { endpoint = "127.0.0.1:9000", bucket_name = "fault", insecure = true }
}
`},
		{"destination", kratixDestination{Label: "w", Count: "2", Name: q("w${count.index + 1}"), Path: q("w${count.index + 1}"),
			InitWorkloads: "false", StateStore: "kratix_state_store.s", Body: lifecycleCreateBeforeDestroy}.String(), `
resource "kratix_destination" "w" {
  count          = 2
  name           = "w${count.index + 1}"
  path           = "w${count.index + 1}"
  init_workloads = false
  state_store    = kratix_state_store.s
  lifecycle {
    create_before_destroy = true
  }
}
`},
		{"promise", kratixPromise{Label: "p", Name: q("app"), Destinations: "[kratix_destination.d]",
			DestinationSelectors: matchLabels("env", "dev"), Dependencies: q(namespaceDoc("app"))}.String(), `
resource "kratix_promise" "p" {
  name                  = "app"
  destinations          = [kratix_destination.d]
  destination_selectors = [{ match_labels = { env = "dev" } }]
  dependencies          = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
}
`},
		{"inline store", kratixStateStore{Name: q("shared"), SecretRef: q("s"),
			Git: hclObj{{"url", q("http://h/r.git")}, {"author", hclObj{{"name", q("a")}, {"email", q("a@b")}}}}}.inline(),
			`{ name = "shared", secret_ref = "s", git = { url = "http://h/r.git", author = { name = "a", email = "a@b" } } }`},
		{"heredoc", attrLines(hclAttr{"name", q("app")}, hclAttr{"dependencies", heredoc(namespaceDoc("foo"))}), `  name         = "app"
  dependencies = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: foo
  EOT
`},
		{"request", kratixResourceRequest{Label: "r", Promise: "kratix_promise.p", Name: q("one"), Documents: q(configMapDoc("one"))}.String(), `
resource "kratix_resource_request" "r" {
  promise   = kratix_promise.p
  name      = "one"
  documents = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n"
}
`},
	} {
		if c.got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, c.got, c.want)
		}
	}
}
