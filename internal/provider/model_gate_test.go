package provider

// The observe store of TestAccModel_* for a world with a gated promise (refmodel/gate.go): a
// bucket or repository of its own, where the runner writes the HealthRecords the model draws
// ("health") with its own client, and which the provider only reads: after every apply it must
// hold exactly what was there before the first apply and the records written since.

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/refmodel"
)

// modelObserve is the observe store of one seed and what it must hold.
type modelObserve struct {
	kind, name string
	want       map[string][]byte
}

// newModelObserve makes the observe store and gives conn the body of its resource.
func newModelObserve(t *testing.T, conn *modelConn) *modelObserve {
	t.Helper()
	o := &modelObserve{kind: conn.Kind, name: randomName("obs")}
	if o.kind == "bucket" {
		if err := minioServer.MakeBucket(context.Background(), o.name); err != nil {
			t.Fatal(err)
		}
		conn.Observe = fmt.Sprintf("  name       = %q\n  secret_ref = \"s\"\n  bucket = {\n    endpoint    = %q\n    bucket_name = %q\n    insecure    = true\n  }\n",
			o.name, minioServer.Endpoint, o.name)
	} else {
		if err := gitServer.CreateRepo(o.name, "main"); err != nil {
			t.Fatal(err)
		}
		conn.Observe = fmt.Sprintf("  name       = %q\n  secret_ref = \"s\"\n  git = {\n    url = %q\n  }\n", o.name, gitServer.HTTPBase+"/"+o.name+".git")
	}
	o.want = o.files(t)
	return o
}

// files reads every file of the observe store.
func (o *modelObserve) files(t *testing.T) map[string][]byte {
	t.Helper()
	var (
		out map[string][]byte
		err error
	)
	if o.kind == "bucket" {
		out, err = bucketFiles(o.name)
	} else {
		out, err = gitFiles(gitServer.RepoPath(o.name), "main")
	}
	if err != nil {
		t.Fatalf("reading the observe store %s: %v", o.name, err)
	}
	return out
}

// write writes (or deletes) one record as an agent on the destination would.
func (o *modelObserve) write(t *testing.T, r refmodel.Record) {
	t.Helper()
	var content []byte
	if !r.Delete {
		content = []byte(healthRecord(r.Promise, "", r.State, r.LastRun, ""))
	}
	if _, ok := o.want[r.Path()]; !ok && r.Delete {
		return // no record to delete
	}
	var err error
	switch {
	case o.kind != "bucket" && r.Delete:
		err = gitServer.DeleteFile(o.name, "main", r.Path(), "agent: delete "+r.Path())
	case o.kind != "bucket":
		err = gitServer.PushFile(o.name, "main", r.Path(), content, "agent: "+r.Path())
	default:
		client, cerr := minioServer.Client()
		if cerr != nil {
			t.Fatal(cerr)
		}
		if r.Delete {
			err = client.RemoveObject(context.Background(), o.name, r.Path(), minio.RemoveObjectOptions{})
		} else {
			_, err = client.PutObject(context.Background(), o.name, r.Path(), bytes.NewReader(content), int64(len(content)), minio.PutObjectOptions{})
		}
	}
	if err != nil {
		t.Fatalf("writing record %s in %s: %v", r.Path(), o.name, err)
	}
	if r.Delete {
		delete(o.want, r.Path())
	} else {
		o.want[r.Path()] = content
	}
}

// problems are the differences between the observe store and what it must hold.
func (o *modelObserve) problems(t *testing.T) []string {
	t.Helper()
	got := o.files(t)
	var out []string
	for _, p := range tfvalue.SortedKeys(got) {
		if want, ok := o.want[p]; !ok || !bytes.Equal(want, got[p]) {
			out = append(out, fmt.Sprintf("observe store %s: %s was written by the apply (the provider only reads there)\n    want %q (present %v)\n    got  %q", o.name, p, want, ok, got[p]))
		}
	}
	for _, p := range tfvalue.SortedKeys(o.want) {
		if _, ok := got[p]; !ok {
			out = append(out, fmt.Sprintf("observe store %s: %s was deleted by the apply (the provider only reads there)", o.name, p))
		}
	}
	return out
}
