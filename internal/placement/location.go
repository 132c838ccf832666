package placement

import (
	"path"
	"strings"
)

// Location is a normalised store identity. TEMPORARY: replaced by the full normalisation.
type Location struct{ Kind, Endpoint, Bucket, Branch string }

// BucketLocation is the location of a bucket.
func BucketLocation(endpoint, bucket string) Location {
	return Location{Kind: "bucket", Endpoint: strings.ToLower(strings.TrimSuffix(endpoint, "/")), Bucket: bucket}
}

// GitLocation is the location of a branch of a repository.
func GitLocation(url, branch string) Location {
	if branch == "" {
		branch = "main"
	}
	return Location{Kind: "git", Endpoint: strings.TrimSuffix(strings.TrimSuffix(url, "/"), ".git"), Branch: branch}
}

func (l Location) String() string {
	if l.Kind == "bucket" {
		return "s3://" + l.Endpoint + "/" + l.Bucket
	}
	return "git+" + l.Endpoint + "@" + l.Branch
}

// CleanStorePath cleans a store's path: "", ".", "/" all mean the root.
func CleanStorePath(p string) string {
	return strings.TrimPrefix(path.Clean("/"+p), "/")
}
