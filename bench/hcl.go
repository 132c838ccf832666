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
	promises      []string // kratix_promise blocks, see promiseBlock
}

func (c kratixConfig) String() string {
	var b strings.Builder
	b.WriteString(`terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

`)
	b.WriteString(c.providerAndStore())
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
		b.WriteString("\n" + p)
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

// promiseBlock is a kratix_promise over every destination. count > 0 makes count promises named
// name-0, name-1, ...; selector is the destination_selectors expression, or "" for none;
// dependencies is an HCL expression.
func promiseBlock(name string, count int, dependencies, selector string) string {
	var b strings.Builder
	b.WriteString("resource \"kratix_promise\" \"" + strings.ReplaceAll(name, "-", "_") + "\" {\n")
	if count > 0 {
		fmt.Fprintf(&b, "  count        = %d\n  name         = \"%s-${count.index}\"\n", count, name)
	} else {
		fmt.Fprintf(&b, "  name         = %q\n", name)
	}
	fmt.Fprintf(&b, "  dependencies = %s\n  destinations = kratix_destination.d\n", dependencies)
	if selector != "" {
		fmt.Fprintf(&b, "  destination_selectors = %s\n", selector)
	}
	b.WriteString("}\n")
	return b.String()
}

// nothingMatches is a selector no destination satisfies: the promise is planned and applied
// through Terraform, but nothing is written, which isolates Terraform's own cost.
const nothingMatches = `[{ match_labels = { nothing = "matches" } }]`

// smallNamespace is a one-document dependencies expression naming a Namespace after the promise
// (each promise of a count gets its own).
const smallNamespace = `"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-${count.index}\n"`

// dataConfig is the floor of a plan: as many terraform_data resources as a kratix configuration
// with this many destinations and promises has (plus the store), their inputs shaped like the
// kratix resources' state (a promise's holds one file hash per destination), so that Terraform
// reads, refreshes and diffs a state of the same size and shape.
func dataConfig(destinations, promises int) string {
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
