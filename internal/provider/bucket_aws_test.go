package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// fullBucketPolicy allows a user everything on bucket and nothing elsewhere.
func fullBucketPolicy(bucket string) string {
	return fmt.Sprintf(`{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":["s3:*"],"Resource":["arn:aws:s3:::%[1]s","arn:aws:s3:::%[1]s/*"]}
]}`, bucket)
}

// TestAccBucketStore_awsChain: a store with auth_method = "IAM" and profile = "team" (a profile
// of a temporary shared credentials file, holding a MinIO user's keys) writes a destination and
// a promise; with assume_role and sts_endpoint at MinIO's own STS, the next write goes through
// the role's temporary credentials. A dead STS endpoint, a profile that does not exist and a
// profile with auth_method accessKey fail with errors that name what to fix. Files are read back
// with the test's own root client. AWS_PROFILE chooses the profile as well; a duration STS
// refuses and an STS endpoint that is not a URL fail at plan.
func TestAccBucketStore_awsChain(t *testing.T) {
	requireAcceptance(t)
	ctx := context.Background()
	bucket := randomName("t")
	if err := minioServer.MakeBucket(ctx, bucket); err != nil {
		t.Fatal(err)
	}
	key, secret, err := minioServer.AddUserWithPolicy(ctx, fullBucketPolicy(bucket))
	if err != nil {
		t.Fatal(err)
	}
	_, credsFile := testinfra.IsolateAWS(t)
	if err := os.WriteFile(credsFile, fmt.Appendf(nil, "[team]\naws_access_key_id = %s\naws_secret_access_key = %s\n", key, secret), 0o600); err != nil {
		t.Fatal(err)
	}
	client, err := minioServer.Client()
	if err != nil {
		t.Fatal(err)
	}
	view := acctest.Layout(acctest.Bucket(client, bucket))
	config := func(auth hclObj, dependency string) string {
		return kratixStateStore{
			Label: "s", Name: q(bucket),
			Bucket: append(hclObj{{"endpoint", q(minioServer.Endpoint)}, {"bucket_name", q(bucket)}, {"insecure", "true"}}, auth...),
		}.String() +
			kratixDestination{Label: "d", Name: q("worker-1"), Path: q("worker-1"), StateStore: "kratix_state_store.s"}.String() +
			kratixPromise{Label: "p", Name: q("app"), Destinations: "[kratix_destination.d]", Dependencies: q(namespaceDoc(dependency))}.String()
	}
	profile := hclObj{{"auth_method", q("IAM")}, {"profile", q("team")}}
	role := func(sts string) hclObj {
		return hclObj{{"auth_method", q("IAM")}, {"profile", q("team")}, {"sts_endpoint", q("http://" + sts)}, {"assume_role", hclObj{
			{"role_arn", q("arn:aws:iam::123456789012:role/kratix")}, {"external_id", q("ext-42")},
			{"session_name", q("kratix-acc")}, {"duration", q("1h")},
		}}}
	}
	files := func(ns string) map[string]string {
		return map[string]string{
			"worker-1/dependencies/kratix-canary-namespace.yaml":           wantNamespace,
			"worker-1/resources/kratix-canary-configmap.yaml":              wantConfigMap,
			"worker-1/dependencies/app/5058f/static/app-dependencies.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n",
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config:            config(profile, "app"),
				ConfigStateChecks: []statecheck.StateCheck{acctest.HoldsExactly(view, files("app"))},
			},
			{
				// Through the assumed role: the dependency is rewritten.
				Config:            config(role(minioServer.Endpoint), "app-v2"),
				ConfigStateChecks: []statecheck.StateCheck{acctest.HoldsExactly(view, files("app-v2"))},
			},
			{
				// STS down: the role is not skipped, so nothing can be read or written.
				Config:      config(role(closedPort(t)), "app-v3"),
				ExpectError: wrapped(`authentication failed[\s\S]*no AWS credentials from profile "team"[\s\S]*AssumeRole`),
			},
			{
				Config:      config(hclObj{{"auth_method", q("IAM")}, {"profile", q("nope")}}, "app-v3"),
				ExpectError: wrapped(`AWS profile "nope" was not found in [\s\S]*aws-credentials`),
			},
			{
				Config:      config(hclObj{{"profile", q("team")}}, "app-v3"),
				ExpectError: wrapped(`names the AWS profile "team", but its auth_method is "accessKey"`),
			},
			{
				Config: config(hclObj{{"auth_method", q("IAM")}, {"profile", q("team")}, {"sts_endpoint", q("sts.example.com")},
					{"assume_role", `{ role_arn = "arn:aws:iam::123456789012:role/kratix", duration = "5m" }`}}, "app-v3"),
				PlanOnly: true,
				// Both errors, in either order.
				ExpectError: wrapped(`(duration: "5m" is outside what STS allows[\s\S]*sts_endpoint: "sts.example.com" is not an|` +
					`sts_endpoint: "sts.example.com" is not an[\s\S]*duration: "5m" is outside what STS allows)`),
			},
			{
				// The profile chosen by AWS_PROFILE, as after `export AWS_PROFILE=team`.
				PreConfig:         func() { t.Setenv("AWS_PROFILE", "team") },
				Config:            config(hclObj{{"auth_method", q("IAM")}}, "app-v4"),
				ConfigStateChecks: []statecheck.StateCheck{acctest.HoldsExactly(view, files("app-v4"))},
			},
			{
				Config:            config(role(minioServer.Endpoint), "app-v2"),
				ConfigStateChecks: []statecheck.StateCheck{acctest.HoldsExactly(view, files("app-v2"))},
			},
		},
	})
}

// stsRecorder is a reverse proxy in front of an STS endpoint that keeps the last temporary
// secret key and session token it saw go back to the provider, so that a test can look for them
// where they must not be.
type stsRecorder struct {
	url string

	mu            sync.Mutex
	secret, token string
}

var (
	stsSecretKey    = regexp.MustCompile(`<SecretAccessKey>([^<]+)</SecretAccessKey>`)
	stsSessionToken = regexp.MustCompile(`<SessionToken>([^<]+)</SessionToken>`)
)

func startSTSRecorder(t *testing.T, target string) *stsRecorder {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	r := &stsRecorder{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ModifyResponse = func(resp *http.Response) error {
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		r.mu.Lock()
		defer r.mu.Unlock()
		if m := stsSecretKey.FindSubmatch(body); m != nil {
			r.secret = string(m[1])
		}
		if m := stsSessionToken.FindSubmatch(body); m != nil {
			r.token = string(m[1])
		}
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

// credentials returns the last temporary secret key and session token STS answered with.
func (r *stsRecorder) credentials() (secret, token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.secret, r.token
}
