package main

import (
	"fmt"
	"strings"
)

// storeRef says which store a configuration writes to and how the provider reaches it.
type storeRef struct {
	// endpoint and bucket for a bucket store; url for a git store (smart HTTP).
	endpoint, bucket, url string
	user, password        string // access key and secret, or git basic auth
}

func (e *env) bucketRef(endpoint, bucket string) storeRef {
	return storeRef{endpoint: endpoint, bucket: bucket, user: e.minio.AccessKey, password: e.minio.SecretKey}
}

func (e *env) gitRef(repo string) storeRef {
	return storeRef{url: e.git.HTTPURL(repo), user: e.git.Username, password: e.git.Password}
}

// kratixConfig is a configuration in the shape users write: one store, n destinations from
// count, and the promise blocks given.
type kratixConfig struct {
	store         storeRef
	destinations  int
	initWorkloads bool
	promises      []promiseSpec
	requests      []requestSpec
	// observe gives every promise observe = { state_store = kratix_state_store.h }: a second
	// store on the same bucket whose path is healthFolder (bucket stores only).
	observe bool
}

// healthFolder is the folder of the observed fleet's HealthRecords in its bucket: one folder per
// destination under it.
const healthFolder = "health"

func (c kratixConfig) String() string {
	var b strings.Builder
	b.WriteString(`terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

`)
	b.WriteString(c.providerAndStore())
	if c.observe {
		b.WriteString(c.observeStore())
	}
	fmt.Fprintf(&b, `
resource "kratix_destination" "d" {
  count          = %d
  name           = format("dest-%%03d", count.index)
  path           = format("dest-%%03d", count.index)
  labels         = { env = "bench", zone = count.index %% 2 == 0 ? "even" : "odd" }
  init_workloads = %t
  state_store    = kratix_state_store.s
}
`, c.destinations, c.initWorkloads)
	for _, p := range c.promises {
		b.WriteString("\n" + p.block(c.observe))
	}
	for _, r := range c.requests {
		b.WriteString("\n" + r.block())
	}
	return b.String()
}

func (c kratixConfig) providerAndStore() string {
	if c.store.url != "" {
		return fmt.Sprintf(`provider "kratix" {
  secrets = {
    s = { username = %q, password = %q }
  }
}

resource "kratix_state_store" "s" {
  name       = "bench"
  secret_ref = "s"
  git        = { url = %q }
}
`, c.store.user, c.store.password, c.store.url)
	}
	return fmt.Sprintf(`provider "kratix" {
  secrets = {
    s = { access_key_id = %q, secret_access_key = %q }
  }
}

resource "kratix_state_store" "s" {
  name       = "bench"
  secret_ref = "s"
  bucket     = { endpoint = %q, bucket_name = %q, insecure = true }
}
`, c.store.user, c.store.password, c.store.endpoint, c.store.bucket)
}

// observeStore is kratix_state_store.h, the store an observed fleet reads its health from: the
// same bucket as kratix_state_store.s, at path healthFolder.
func (c kratixConfig) observeStore() string {
	return fmt.Sprintf(`
resource "kratix_state_store" "h" {
  name       = "bench-health"
  secret_ref = "s"
  path       = %q
  bucket     = { endpoint = %q, bucket_name = %q, insecure = true }
}
`, healthFolder, c.store.endpoint, c.store.bucket)
}

// promiseSpec is one kratix_promise block over every destination (kratix_destination.d).
type promiseSpec struct {
	// name is the resource's name and the promise's; count > 0 makes count promises named
	// name-0, name-1, ...
	name  string
	count int
	// dependencies is an HCL expression; it may use count.index.
	dependencies string
	// selector is the destination_selectors expression, or "" for none.
	selector string
}

// resourceName is the promise's Terraform resource name.
func (p promiseSpec) resourceName() string { return strings.ReplaceAll(p.name, "-", "_") }

// nameTemplate is the promise's name as the inside of an HCL string ("p-${count.index}").
func (p promiseSpec) nameTemplate() string {
	if p.count > 0 {
		return p.name + "-${count.index}"
	}
	return p.name
}

// instances is how many promises the block makes.
func (p promiseSpec) instances() int { return max(p.count, 1) }

// block is the kratix_promise block; with observe it reads its health from kratix_state_store.h.
func (p promiseSpec) block(observe bool) string {
	var b strings.Builder
	b.WriteString("resource \"kratix_promise\" \"" + p.resourceName() + "\" {\n")
	if p.count > 0 {
		fmt.Fprintf(&b, "  count        = %d\n", p.count)
	}
	fmt.Fprintf(&b, "  name         = \"%s\"\n", p.nameTemplate())
	fmt.Fprintf(&b, "  dependencies = %s\n  destinations = kratix_destination.d\n", p.dependencies)
	if p.selector != "" {
		fmt.Fprintf(&b, "  destination_selectors = %s\n", p.selector)
	}
	if observe {
		b.WriteString("  observe      = { state_store = kratix_state_store.h }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// requestSpec is one kratix_resource_request block of count requests of one promise (a
// promiseSpec without count), each named <name>-<index> in the default namespace.
type requestSpec struct {
	// name is the resource's name and the requests' name prefix.
	name  string
	count int
	// promise is the promise's resource name (promiseSpec.resourceName).
	promise string
	// documents is an HCL expression; it may use count.index.
	documents string
}

// resourceName is the request block's Terraform resource name.
func (r requestSpec) resourceName() string { return strings.ReplaceAll(r.name, "-", "_") }

// instances is how many requests the block makes.
func (r requestSpec) instances() int { return max(r.count, 1) }

func (r requestSpec) block() string {
	return fmt.Sprintf(`resource "kratix_resource_request" %q {
  count     = %d
  promise   = kratix_promise.%s
  name      = "%s-${count.index}"
  documents = %s
}
`, r.resourceName(), r.instances(), r.promise, r.name, r.documents)
}

// smallConfigMap is a one-document request body naming a ConfigMap after the request: each
// request of a count writes different bytes.
const smallConfigMap = `"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${count.index}\n  namespace: default\ndata:\n  index: \"${count.index}\"\n"`

// nothingMatches is a selector no destination satisfies: the promise is planned and applied
// through Terraform, but nothing is written, which isolates Terraform's own cost.
const nothingMatches = `[{ match_labels = { nothing = "matches" } }]`

// smallNamespace is a one-document dependencies expression naming a Namespace after the promise
// (each promise of a count gets its own).
const smallNamespace = `"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-${count.index}\n"`

// oneNamespace is a one-document dependencies expression for a promise without count.
const oneNamespace = `"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-p\n"`

// bareDataConfig is the bare floor, the second floor column of B4 and B5: as many
// terraform_data resources as a kratix configuration with this many destinations and promises
// has (plus the store), carrying a little of its values (a promise's input holds one file hash
// per destination, no destination objects). It is what Terraform costs for the resource count
// alone; kratixConfig.fairFloor is the floor the ratio is taken against.
func bareDataConfig(destinations, promises int) string {
	return fmt.Sprintf(`resource "terraform_data" "s" {
  input = { name = "bench", endpoint = "127.0.0.1:9000", bucket_name = "bench" }
}

resource "terraform_data" "d" {
  count = %d
  input = {
    name   = format("dest-%%03d", count.index)
    path   = format("dest-%%03d", count.index)
    labels = { env = "bench", zone = count.index %% 2 == 0 ? "even" : "odd" }
    files  = {}
  }
}

resource "terraform_data" "p" {
  count = %d
  input = {
    name         = "ns-${count.index}"
    dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-${count.index}\n"
    placements = {
      for i in range(%d) : format("dest-%%03d", i) => {
        root  = format("dest-%%03d", i)
        files = { format("dest-%%03d/dependencies/p-${count.index}/5058f/static/p-${count.index}-dependencies.yaml", i) = md5("${count.index}-${i}") }
      }
    }
  }
}
`, destinations, promises, destinations)
}
