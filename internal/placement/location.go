package placement

// The identity of a store location, so that two kratix_state_store resources that name one
// bucket or one repository branch, however differently spelled, are known to be one place, and
// destinations that would share a folder there can be refused at plan.

import (
	"net/url"
	"path"
	"strings"
)

// Kinds of store location.
const (
	KindBucket = "bucket"
	KindGit    = "git"
)

// DefaultBranch is the branch of a git store that names none, as kratix_state_store defaults it.
const DefaultBranch = "main"

// Location is a store's normalised identity: for a bucket, its endpoint and bucket name; for git,
// its repository URL (in Endpoint) and branch. Attributes that do not change where files land
// (credentials, author, insecure flags, region) are deliberately not part of it. Compare
// Locations, or their String, for equality.
type Location struct {
	Kind     string
	Endpoint string
	Bucket   string
	Branch   string
}

// BucketLocation is the location of a bucket. The endpoint is compared without case, scheme,
// trailing "/" or a default port (:443 or :80): those choose how to reach the server, not which
// server it is, and a false "same place" only refuses a plan while a false "different place"
// lets two destinations overwrite each other.
func BucketLocation(endpoint, bucket string) Location {
	e := strings.ToLower(endpoint)
	e = strings.TrimPrefix(strings.TrimPrefix(e, "https://"), "http://")
	e = strings.TrimRight(e, "/")
	e = strings.TrimSuffix(strings.TrimSuffix(e, ":443"), ":80")
	return Location{Kind: KindBucket, Endpoint: e, Bucket: bucket}
}

// GitLocation is the location of a branch of a repository. Branch "" is "main", and
// "refs/heads/x" is "x". The URL is normalised so that spellings git treats as one repository are
// equal (see normaliseGitURL); a password in it never reaches the result.
func GitLocation(rawURL, branch string) Location {
	branch = strings.TrimPrefix(branch, "refs/heads/")
	if branch == "" {
		branch = DefaultBranch
	}
	return Location{Kind: KindGit, Endpoint: normaliseGitURL(rawURL), Branch: branch}
}

// String is a readable, stable key for the location, such as "s3://127.0.0.1:9000/kratix" or
// "git+https://github.com/org/repo@main"; equal locations give equal strings. A zero Location is
// "".
func (l Location) String() string {
	switch l.Kind {
	case KindBucket:
		return "s3://" + l.Endpoint + "/" + l.Bucket
	case KindGit:
		return "git+" + l.Endpoint + "@" + l.Branch
	}
	return ""
}

// CleanStorePath is a store's path as a folder relative to the bucket or repository root: "",
// ".", "/" and "./" are the root (""), "team/" is "team", "a//b" is "a/b". It does not judge the
// path: check it with layout.CheckRelative first, or ".." would quietly become the root.
func CleanStorePath(p string) string {
	return strings.TrimPrefix(path.Clean("/"+p), "/")
}

// defaultPorts are the ports a git URL's scheme implies, so writing them changes nothing.
var defaultPorts = map[string]string{"https": "443", "http": "80", "ssh": "22", "git": "9418"}

// normaliseGitURL spells a repository URL one way: scp-like "git@host:org/repo" as
// "ssh://git@host/org/repo", scheme and host in lower case, no default port, no ".git" suffix or
// trailing "/", no fragment. The user is kept for ssh only (it can choose the account, and so the
// repository); for http(s) it is only a credential, and a password is never kept. The path keeps
// its case, which git servers honour; file:// paths are cleaned, as git resolves them.
func normaliseGitURL(raw string) string {
	u, err := url.Parse(asURL(raw))
	if err != nil {
		return withoutUserinfo(trimRepoSuffix(asURL(raw)))
	}
	scheme := u.Scheme
	if scheme == "git+ssh" || scheme == "ssh+git" {
		scheme = "ssh"
	}
	out := url.URL{Scheme: scheme, Host: host(scheme, u), Path: u.Path, RawQuery: u.RawQuery}
	if scheme == "ssh" && u.User != nil && u.User.Username() != "" {
		out.User = url.User(u.User.Username())
	}
	if scheme == "file" {
		out.Path = path.Clean("/" + u.Path)
		if out.Host == "localhost" {
			out.Host = ""
		}
	}
	out.Path = trimRepoSuffix(out.Path)
	return out.String()
}

// asURL turns git's other spellings into URLs: scp-like "[user@]host:path" into
// "ssh://[user@]host/path", and an absolute local path into "file:///path". Git takes a string
// for scp-like when a ":" comes before any "/" and it has no "://". A relative path stays as it
// is: without a working directory it cannot be compared with anything but itself.
func asURL(raw string) string {
	if strings.Contains(raw, "://") {
		return raw
	}
	userinfo, rest := "", raw
	if at := strings.Index(raw, "@"); at >= 0 && hostColon(raw[at+1:]) >= 0 {
		userinfo, rest = raw[:at+1], raw[at+1:]
	}
	colon := hostColon(rest)
	if colon < 0 {
		if strings.HasPrefix(raw, "/") {
			return "file://" + path.Clean(raw)
		}
		return raw
	}
	p := rest[colon+1:]
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return "ssh://" + userinfo + rest[:colon] + p
}

// hostColon is the index of the ":" that ends the host of an scp-like address (after a bracketed
// IPv6 address if there is one), or -1 when a "/" comes first or there is none.
func hostColon(s string) int {
	start := 0
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "]")
		if end < 0 {
			return -1
		}
		start = end + 1
	}
	colon := strings.Index(s[start:], ":")
	slash := strings.Index(s[start:], "/")
	if colon < 0 || slash >= 0 && slash < colon {
		return -1
	}
	return start + colon
}

// host is the URL's host in lower case, without the scheme's default port.
func host(scheme string, u *url.URL) string {
	h := strings.ToLower(u.Hostname())
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	if port := u.Port(); port != "" && port != defaultPorts[scheme] {
		h += ":" + port
	}
	return h
}

// trimRepoSuffix drops the trailing "/" and ".git" that name the same repository ("repo/",
// "repo.git", "repo/.git" for a local working copy).
func trimRepoSuffix(p string) string {
	p = strings.TrimRight(p, "/")
	p = strings.TrimSuffix(p, ".git")
	return strings.TrimRight(p, "/")
}

// withoutUserinfo drops "user:password@" from a URL that net/url cannot parse, so that even a
// malformed URL never carries a password into a plan or an error message.
func withoutUserinfo(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	authority, tail, hasPath := strings.Cut(rest, "/")
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		authority = authority[at+1:]
	}
	if !hasPath {
		return scheme + "://" + authority
	}
	return scheme + "://" + authority + "/" + tail
}
