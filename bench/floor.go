package main

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"
)

// The fair floor of an end-to-end scenario is its kratix configuration written as terraform_data
// resources that carry the same values, resource for resource: Terraform plans, applies,
// refreshes and diffs a state holding the same objects of the same sizes, and does nothing else.
// The gap between the two is what the provider adds: its RPCs, its reads of the store, its
// writes, its checks.
//
// Each resource's input mirrors the provider's state (see the kratix_* schemas):
//
//   - the store: its attributes, the reference a destination copies under ref;
//   - a destination: its attributes under destination (name, labels, path, filepath_mode,
//     aggregated_filename, strict_match_labels, instance_id, the store object) and, beside them,
//     root, cleanup, init_workloads and a files map of the same size as the computed one (the
//     two canaries when init_workloads is set, path to 32-hex MD5);
//   - a promise: its name, the same dependencies expression, the list of destination objects
//     (from the floor's destination resources, as the promise's destinations =
//     kratix_destination.d), scheduled_destinations, and placements of the same shape: per
//     destination its store, location, root, misscheduled and files (the same store paths,
//     path to 32-hex MD5);
//   - a request: its name, namespace, pipeline, the same documents expression, the promise
//     object it was given (the promise's name and its destination objects), and the destination
//     it landed on (and the list of it) with its root, location and written_files (the same store path, path to
//     32-hex MD5).
//
// The MD5s are of short strings: the floor must not hash megabytes of dependencies in
// Terraform's functions, work the provider does and Terraform by itself would not. The values are
// carried in triggers_replace, which terraform_data keeps once in state (an input would be kept
// twice, as input and output, and make the floor slower than Terraform's own share of a run).

// defaultGroupID is the folder Kratix names a placement's group after in the nestedByMetadata
// layout (internal/layout's DefaultGroupID, written out: the floor copies the provider's state,
// it does not compute it).
const defaultGroupID = "5058f"

// fairFloor is c as terraform_data resources carrying the same values. Only promises over every
// destination (no selector) have a floor: with a selector, which placements exist depends on the
// provider's scheduling.
func (c kratixConfig) fairFloor() (string, error) {
	if c.observe {
		return "", fmt.Errorf("the fair floor does not mirror observe and health: the observed fleet is compared with the same fleet without them")
	}
	var b strings.Builder
	b.WriteString(c.floorStore())
	b.WriteString(c.floorDestinations())
	for _, p := range c.promises {
		if p.selector != "" {
			return "", fmt.Errorf("promise %s: the fair floor mirrors promises over every destination, not ones with destination_selectors", p.name)
		}
		b.WriteString(c.floorPromise(p))
	}
	for _, r := range c.requests {
		p, err := c.requestPromise(r)
		if err != nil {
			return "", err
		}
		b.WriteString(c.floorRequest(r, p))
	}
	return b.String(), nil
}

// requestPromise is the promise block a request block names; the floor mirrors requests of a
// promise without count only.
func (c kratixConfig) requestPromise(r requestSpec) (promiseSpec, error) {
	for _, p := range c.promises {
		if p.resourceName() == r.promise && p.count == 0 {
			return p, nil
		}
	}
	return promiseSpec{}, fmt.Errorf("request %s: the fair floor mirrors requests of a promise block without count named %q, and there is none", r.name, r.promise)
}

// floorStore mirrors kratix_state_store.s: ref is the object a destination's state_store holds,
// with the defaults the provider fills in.
func (c kratixConfig) floorStore() string {
	ref := `bucket = null
      git = {
        url                      = ` + fmt.Sprintf("%q", c.store.url) + `
        branch                   = "main"
        author                   = { name = "kratix", email = "" }
        insecure_ignore_host_key = false
        signing                  = null
      }`
	if c.store.url == "" {
		ref = fmt.Sprintf(`bucket = {
        endpoint    = %q
        bucket_name = %q
        insecure    = true
        region       = null
        auth_method  = "accessKey"
        profile      = null
        assume_role  = null
        sts_endpoint = null
        use_dual_stack = null
      }
      git = null`, c.store.endpoint, c.store.bucket)
	}
	return fmt.Sprintf(`resource "terraform_data" "s" {
  triggers_replace = {
    id            = "bench"
    create_bucket = false
    timeouts      = null
    ref = {
      name       = "bench"
      path       = null
      secret_ref = "s"
      %s
    }
  }
}
`, ref)
}

// floorDestinations mirrors kratix_destination.d.
func (c kratixConfig) floorDestinations() string {
	files := "{}"
	if c.initWorkloads {
		files = `{
      format("dest-%03d/dependencies/kratix-canary-namespace.yaml", count.index) = md5("namespace-${count.index}")
      format("dest-%03d/resources/kratix-canary-configmap.yaml", count.index)    = md5("configmap-${count.index}")
    }`
	}
	return fmt.Sprintf(`
resource "terraform_data" "d" {
  count = %d
  triggers_replace = {
    id             = format("dest-%%03d", count.index)
    root           = format("dest-%%03d", count.index)
    init_workloads = %t
    cleanup        = "none"
    timeouts       = null
    destination = {
      name                = format("dest-%%03d", count.index)
      path                = format("dest-%%03d", count.index)
      labels              = { env = "bench", zone = count.index %% 2 == 0 ? "even" : "odd" }
      strict_match_labels = false
      taints              = null
      weight              = null
      filepath_mode       = "nestedByMetadata"
      aggregated_filename = "aggregated.yaml"
      instance_id         = substr(md5("instance-${count.index}"), 0, 16)
      state_store         = terraform_data.s.triggers_replace.ref
    }
    files = %s
  }
}
`, c.destinations, c.initWorkloads, files)
}

// floorPromise mirrors one kratix_promise block over every destination.
func (c kratixConfig) floorPromise(p promiseSpec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nresource \"terraform_data\" %q {\n", p.resourceName())
	if p.count > 0 {
		fmt.Fprintf(&b, "  count = %d\n", p.count)
	}
	name := p.nameTemplate()
	fmt.Fprintf(&b, `  triggers_replace = {
    id                        = "%[1]s"
    name                      = "%[1]s"
    dependencies              = %[2]s
    on_unschedule             = "keep"
    destination_selectors     = null
    tolerations               = null
    timeouts                  = null
    destinations              = [for d in terraform_data.d : d.triggers_replace.destination]
    scheduled_destinations    = [for d in terraform_data.d : d.triggers_replace.destination.name]
    misscheduled_destinations = []
    placements = {
      for d in terraform_data.d : d.triggers_replace.destination.name => {
        store        = "bench"
        location     = %[3]q
        root         = d.triggers_replace.root
        misscheduled = false
        files = {
          "${d.triggers_replace.root}/dependencies/%[1]s/%[4]s/static/%[1]s-dependencies.yaml" = md5("%[1]s/${d.triggers_replace.root}")
        }
      }
    }
  }
}
`, name, p.dependencies, c.storeLocation(), defaultGroupID)
	return b.String()
}

// floorRequest mirrors one kratix_resource_request block of promise p. Which destination a
// request lands on is the provider's rendezvous hashing, which the floor does not compute: it
// takes destination count.index modulo their number, a destination of the same shape, so the
// values have the same sizes. Each request's promise object carries the promise's whole pool
// (its destination objects), as the provider's state does.
func (c kratixConfig) floorRequest(r requestSpec, p promiseSpec) string {
	return fmt.Sprintf(`
resource "terraform_data" %[1]q {
  count = %[2]d
  triggers_replace = {
    id                    = "%[3]s/default/%[4]s-${count.index}"
    name                  = "%[4]s-${count.index}"
    namespace             = "default"
    pipeline              = "instance-configure"
    documents             = %[5]s
    files                 = null
    documents_wo          = null
    files_wo              = null
    content_wo_version    = null
    destination_selectors = null
    tolerations           = null
    replicas              = null
    spread                = null
    groups                = null
    guard                 = null
    observe               = null
    health                = null
    timeouts              = null
    promise = {
      name                  = terraform_data.%[6]s.triggers_replace.name
      destination_selectors = null
      destinations          = terraform_data.%[6]s.triggers_replace.destinations
    }
    destination  = terraform_data.d[count.index %% length(terraform_data.d)].triggers_replace.destination.name
    destinations = [terraform_data.d[count.index %% length(terraform_data.d)].triggers_replace.destination.name]
    placements       = null
    group_placements = null
    misscheduled     = false
    location     = %[7]q
    root         = terraform_data.d[count.index %% length(terraform_data.d)].triggers_replace.root
    written_files = {
      "${terraform_data.d[count.index %% length(terraform_data.d)].triggers_replace.root}/resources/default/%[3]s/%[4]s-${count.index}/instance-configure/%[8]s/%[4]s-${count.index}.yaml" = md5("%[4]s-${count.index}")
    }
  }
}
`, r.resourceName(), r.instances(), p.nameTemplate(), r.name, r.documents, p.resourceName(), c.storeLocation(), defaultGroupID)
}

// storeLocation is the store's normalised location as the provider writes it in placements:
// s3://<endpoint>/<bucket>, or git+<url without .git>@<branch>.
func (c kratixConfig) storeLocation() string {
	if c.store.url != "" {
		return "git+" + strings.TrimSuffix(c.store.url, ".git") + "@main"
	}
	return "s3://" + c.store.endpoint + "/" + c.store.bucket
}

// resources is how many resource instances c (and its fair floor) has.
func (c kratixConfig) resources() int {
	n := 1 + c.destinations
	for _, p := range c.promises {
		n += p.instances()
	}
	for _, r := range c.requests {
		n += r.instances()
	}
	return n
}

// fairFloorApply applies cfg's fair floor in a fresh workspace that also holds files (such as
// the dependencies file the configuration reads), with extra apply arguments, and returns how
// long the apply took.
func (e *env) fairFloorApply(ctx context.Context, name string, cfg kratixConfig, files map[string][]byte, extra ...string) (time.Duration, error) {
	ws, err := e.fairFloorWorkspace(name, cfg, files)
	if err != nil {
		return 0, err
	}
	defer ws.remove()
	res, err := ws.apply(ctx, false, extra...)
	if err != nil {
		return 0, fmt.Errorf("applying the fair floor: %w", err)
	}
	return res.took, nil
}

// fairFloorWorkspace writes cfg's fair floor, and files, in a fresh workspace.
func (e *env) fairFloorWorkspace(name string, cfg kratixConfig, files map[string][]byte) (*workspace, error) {
	hcl, err := cfg.fairFloor()
	if err != nil {
		return nil, err
	}
	all := map[string][]byte{"main.tf": []byte(hcl)}
	maps.Copy(all, files)
	return e.newWorkspace(name, all)
}
