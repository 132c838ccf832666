package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/minio/minio-go/v7"
	"sigs.k8s.io/yaml"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
)

// B10's read-back: what a store holding a sharded fleet must hold, stated from the issue and the
// docs (the registry's layout, Kratix's Destination and Promise objects, the owner records), read
// with sigs.k8s.io/yaml into types of this file, not with the provider's parsers.

const (
	registryDestinations = ".kratix-registry/destinations/"
	registryPromises     = ".kratix-registry/promises/"
	registryOwners       = ".kratix-registry/owners/"
	ownerAnnotation      = "terraform.kratix.io/owner"
)

// kratixObject is what a record says of itself, as Kubernetes tools read it.
type kratixObject struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
}

// ownerRecord is an owner record: who holds each folder of one object's placements.
type ownerRecord struct {
	Object  string `json:"object"`
	Folders []struct {
		Root  string   `json:"root"`
		Owner string   `json:"owner"`
		Files []string `json:"files"`
	} `json:"folders"`
}

// shardCheck is what the read-back found, against what each workspace should have written.
type shardCheck struct {
	records, recordsWant int // destination records, each its fleet workspace's
	promiseRecords       int // promise records, each its promise workspace's (none required)
	files, filesWant     int // canaries and dependency files, byte for byte
	entries, entriesWant int // owner records' folders, each its promise workspace's
	takenOver            []string
	lost                 []string // expected and missing or different
	unexpected           []string // in the store, written by nobody's configuration
}

func (c shardCheck) String() string {
	return fmt.Sprintf("%d/%d destination records, %d promise records (none required), %d/%d layout files (canaries and dependencies, byte for byte), "+
		"%d/%d owner-record folders, each naming the workspace that wrote it; %d lost or wrong, %d taken over, %d unexpected",
		c.records, c.recordsWant, c.promiseRecords, c.files, c.filesWant, c.entries, c.entriesWant,
		len(c.lost), len(c.takenOver), len(c.unexpected))
}

// err is nil when the store holds exactly what it should.
func (c shardCheck) err() error {
	if len(c.lost)+len(c.takenOver)+len(c.unexpected) == 0 && c.recordsWant > 0 {
		return nil
	}
	first := func(s []string) string {
		if len(s) > 5 {
			return strings.Join(s[:5], ", ") + ", ..."
		}
		return strings.Join(s, ", ")
	}
	return fmt.Errorf("the store does not hold what the workspaces wrote: lost or wrong [%s], taken over [%s], unexpected [%s]",
		first(c.lost), first(c.takenOver), first(c.unexpected))
}

// checkShardStore compares files (a whole store, path to content) with the fleet of shards
// shards of perShard destinations, each served by promises promises p-0, p-1, ...
func checkShardStore(files map[string][]byte, shards, perShard, promises int) (shardCheck, error) {
	var c shardCheck
	seen := map[string]bool{}
	deps := make([][]byte, promises)
	for i := range promises {
		docs, err := manifest.Parse(fmt.Appendf(nil, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-%d\n", i))
		if err != nil {
			return c, err
		}
		deps[i] = manifest.Canonical(docs)
	}
	holder := map[string]string{} // destination folder -> the promise workspace that serves it
	for k := range shards {
		for i := range perShard {
			d := shardDestination(k, i)
			holder[d] = platformOwner(k)
			// The destination's record, Kratix's Destination with the fleet workspace's owner.
			c.recordsWant++
			p := registryDestinations + d + ".yaml"
			seen[p] = true
			var rec kratixObject
			switch content, ok := files[p]; {
			case !ok:
				c.lost = append(c.lost, p+" (missing)")
			case yaml.Unmarshal(content, &rec) != nil || rec.Kind != "Destination" || rec.Metadata.Name != d || rec.Metadata.Labels["shard"] != shardName(k):
				c.lost = append(c.lost, p+" (not destination "+d+" of shard "+shardName(k)+")")
			case rec.Metadata.Annotations[ownerAnnotation] != fleetOwner(k):
				c.takenOver = append(c.takenOver, fmt.Sprintf("%s (owner %q, want %q)", p, rec.Metadata.Annotations[ownerAnnotation], fleetOwner(k)))
			default:
				c.records++
			}
			// Its canaries and every promise's dependencies, byte for byte.
			want := layout.Canaries(layout.ModeNestedByMetadata, d)
			for j := range promises {
				placed, err := layout.DependencyFiles(layout.Target{Destination: d, Mode: layout.ModeNestedByMetadata, Root: d},
					layout.Dependencies{Promise: fmt.Sprintf("p-%d", j), All: deps[j]})
				if err != nil {
					return c, err
				}
				for f, content := range placed.Put {
					want[f] = content
				}
			}
			for f, content := range want {
				c.filesWant++
				seen[f] = true
				switch got, ok := files[f]; {
				case !ok:
					c.lost = append(c.lost, f+" (missing)")
				case !bytes.Equal(got, content):
					c.lost = append(c.lost, f+" (different bytes)")
				default:
					c.files++
				}
			}
		}
	}
	for j := range promises {
		name := fmt.Sprintf("p-%d", j)
		// A record of the promise per promise workspace that publishes one, each naming its
		// owner once. Promises publish no record yet (issue 39, point 1, in part): none is
		// required, and each one found must be a promise workspace's own.
		owners := map[string]bool{}
		for k := range shards {
			owners[platformOwner(k)] = true
		}
		for p, content := range files {
			if !strings.HasPrefix(p, registryPromises+name+"/") {
				continue
			}
			seen[p] = true
			var rec kratixObject
			owner := ""
			if yaml.Unmarshal(content, &rec) == nil && rec.Kind == "Promise" && rec.Metadata.Name == name {
				owner = rec.Metadata.Annotations[ownerAnnotation]
			}
			if owners[owner] {
				delete(owners, owner)
				c.promiseRecords++
			} else {
				c.unexpected = append(c.unexpected, fmt.Sprintf("%s (owner %q)", p, owner))
			}
		}
		// Its owner record: every folder of every shard, each held by its shard's promise workspace.
		p := registryOwners + "promise_" + name + ".yaml"
		seen[p] = true
		var rec ownerRecord
		if err := yaml.Unmarshal(files[p], &rec); err != nil || rec.Object != "promise/"+name {
			c.lost = append(c.lost, p+" (missing or not promise/"+name+"'s)")
			continue
		}
		held, listed := map[string]bool{}, map[string]bool{}
		for _, f := range rec.Folders {
			listed[f.Root] = true
			switch want, ok := holder[f.Root]; {
			case !ok:
				c.unexpected = append(c.unexpected, fmt.Sprintf("%s: folder %s", p, f.Root))
			case f.Owner != want:
				c.takenOver = append(c.takenOver, fmt.Sprintf("%s: folder %s held by %q, want %q", p, f.Root, f.Owner, want))
			default:
				held[f.Root] = true
			}
		}
		c.entriesWant += len(holder)
		c.entries += len(held)
		for d := range holder {
			if !listed[d] {
				c.lost = append(c.lost, fmt.Sprintf("%s: folder %s (missing)", p, d))
			}
		}
	}
	for p := range files {
		if !seen[p] {
			c.unexpected = append(c.unexpected, p)
		}
	}
	sort.Strings(c.lost)
	sort.Strings(c.takenOver)
	sort.Strings(c.unexpected)
	return c, c.err()
}

// bucketFiles reads every object of a bucket with plain minio-go.
func (e *env) bucketFiles(ctx context.Context, bucket string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for o := range e.client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			return nil, fmt.Errorf("listing bucket %s: %w", bucket, o.Err)
		}
		obj, err := e.client.GetObject(ctx, bucket, o.Key, minio.GetObjectOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading %s from bucket %s: %w", o.Key, bucket, err)
		}
		content, err := io.ReadAll(obj)
		_ = obj.Close()
		if err != nil {
			return nil, fmt.Errorf("reading %s from bucket %s: %w", o.Key, bucket, err)
		}
		out[o.Key] = content
	}
	return out, nil
}

// gitFiles reads every file at the tip of a repository's main branch with the git CLI (a clone
// into the scratch folder).
func (e *env) gitFiles(ctx context.Context, repo string) (map[string][]byte, error) {
	dir, err := os.MkdirTemp(e.dir, repo+"-clone-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if out, err := exec.CommandContext(ctx, "git", "clone", "--quiet", "--branch", "main", e.git.RepoPath(repo), dir).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("cloning %s: %w: %s", repo, err, out)
	}
	out := map[string][]byte{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		content, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = content
		return err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the clone of %s: %w", repo, err)
	}
	return out, nil
}
