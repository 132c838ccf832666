package testinfra

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// listingMetadata is what MinIO adds to each object of a listing asked with metadata=true (its
// extension): the object's user metadata, tags and internal fields.
var listingMetadata = regexp.MustCompile(`(?s)<UserMetadata>.*?</UserMetadata>|<UserMetadata/>|<UserTags>.*?</UserTags>|<UserTags/>|<Internal>.*?</Internal>`)

// IsS3Listing reports whether req lists a bucket's objects (GET on the bucket, no key).
func IsS3Listing(req *http.Request) bool {
	bucket, key, _ := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), "/")
	if req.Method != http.MethodGet || bucket == "" || key != "" {
		return false
	}
	q := req.URL.Query()
	return q.Has("list-type") || q.Has("prefix") || q.Has("delimiter") || len(q) == 0
}

// StripListingMetadata makes a listing response what a server without MinIO's extension (AWS)
// answers: no metadata per object. It reports whether there was any to strip. The request must
// not have asked for a compressed body (drop Accept-Encoding, which is not signed).
func StripListingMetadata(resp *http.Response) (bool, error) {
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return false, err
	}
	plain := listingMetadata.ReplaceAll(body, nil)
	resp.Body = io.NopCloser(bytes.NewReader(plain))
	resp.ContentLength = int64(len(plain))
	resp.Header.Set("Content-Length", strconv.Itoa(len(plain)))
	return !bytes.Equal(plain, body), nil
}
