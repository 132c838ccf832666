package statestore

import (
	"errors"
	"strings"
	"testing"
)

// A refused request's advice names where the credentials came from: the provider's secrets for
// access keys, the AWS credential chain (or its profile) for IAM, and the role when one is
// assumed.
func TestBucketAuthAdviceNamesTheCredentials(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  BucketConfig
		want string
	}{
		{"access keys", BucketConfig{AuthMethod: "accessKey"}, "Check the credentials in the provider's secrets (or their KRATIX_SECRET_* environment variables)"},
		{"IAM", BucketConfig{AuthMethod: "IAM"}, "Check the credentials the AWS credential chain finds (environment variables, AWS_PROFILE's profile"},
		{"IAM with a profile", BucketConfig{AuthMethod: "IAM", Profile: "team"}, `Check the credentials of AWS profile "team"`},
		{"access keys and a role", BucketConfig{AuthMethod: "accessKey", AssumeRole: &AssumeRole{RoleARN: "arn:aws:iam::1:role/r"}},
			"Check the credentials in the provider's secrets, and that they may assume the store's assume_role.role_arn"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Endpoint, c.cfg.BucketName = "minio.example:9000", "b"
			b := &bucketStore{cfg: c.cfg}
			var se *Error
			if !errors.As(b.fail("write", KindAuth, errors.New("InvalidAccessKeyId")), &se) {
				t.Fatal("fail did not make a *statestore.Error")
			}
			if got := se.Advice(); !strings.Contains(got, c.want) {
				t.Errorf("advice %q, want it to say %q", got, c.want)
			}
		})
	}
}
