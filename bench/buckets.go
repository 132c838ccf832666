package main

import (
	"context"
	"fmt"

	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// b2Destinations is how many destinations B2 and B3 write the dependencies to.
const b2Destinations = 100

// destinationName is dest-000, dest-001, ...: the names the Terraform configurations give too.
func destinationName(i int) string { return fmt.Sprintf("dest-%03d", i) }

// dependencyPuts lays out one promise's dependencies in n destinations with the provider's own
// layout code: dest-NNN/dependencies/<promise>/5058f/static/<promise>-dependencies.yaml.
func dependencyPuts(promise string, content []byte, n int) (map[string][]byte, error) {
	puts := make(map[string][]byte, n)
	for i := range n {
		name := destinationName(i)
		files, err := layout.DependencyFiles(
			layout.Target{Destination: name, Mode: layout.ModeNestedByMetadata, Root: name},
			layout.Dependencies{Promise: promise, All: content})
		if err != nil {
			return nil, fmt.Errorf("laying out %s in %s: %w", promise, name, err)
		}
		for p, c := range files.Put {
			puts[p] = c
		}
	}
	return puts, nil
}

// freshBucket creates an empty bucket for one run.
func (e *env) freshBucket(ctx context.Context, name string) error {
	if err := e.minio.MakeBucket(ctx, name); err != nil {
		return fmt.Errorf("creating bucket %s: %w", name, err)
	}
	return nil
}

// dropBucket empties and removes a bucket, so that five runs of 190 MB each do not pile up in
// MinIO's data folder. Failures are only logged: they cost disk, not correctness.
func (e *env) dropBucket(ctx context.Context, name string) {
	objects := make(chan minio.ObjectInfo)
	go func() {
		defer close(objects)
		for o := range e.client.ListObjects(ctx, name, minio.ListObjectsOptions{Recursive: true}) {
			if o.Err != nil {
				return
			}
			objects <- o
		}
	}()
	for r := range e.client.RemoveObjects(ctx, name, objects, minio.RemoveObjectsOptions{}) {
		logf("removing %s from bucket %s: %v", r.ObjectName, name, r.Err)
	}
	if err := e.client.RemoveBucket(ctx, name); err != nil {
		logf("removing bucket %s: %v", name, err)
	}
}

// countObjects is how many objects a bucket holds, counted with plain minio-go.
func (e *env) countObjects(ctx context.Context, bucket string) (int, error) {
	n := 0
	for o := range e.client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			return 0, fmt.Errorf("listing bucket %s: %w", bucket, o.Err)
		}
		n++
	}
	return n, nil
}
