package placement

import (
	"strings"
	"testing"
)

func TestBucketLocation(t *testing.T) {
	tests := []struct {
		endpoint, bucket string
		want             string
	}{
		{"127.0.0.1:9000", "kratix", "s3://127.0.0.1:9000/kratix"},
		{"127.0.0.1:9000/", "kratix", "s3://127.0.0.1:9000/kratix"},
		{"http://127.0.0.1:9000", "kratix", "s3://127.0.0.1:9000/kratix"},
		{"https://127.0.0.1:9000/", "kratix", "s3://127.0.0.1:9000/kratix"},
		{"MinIO.Example.com:9000", "kratix", "s3://minio.example.com:9000/kratix"},
		{"HTTPS://MINIO.EXAMPLE.COM:9000", "kratix", "s3://minio.example.com:9000/kratix"},
		{"s3.amazonaws.com", "kratix", "s3://s3.amazonaws.com/kratix"},
		{"s3.amazonaws.com:443", "kratix", "s3://s3.amazonaws.com/kratix"},
		{"https://s3.amazonaws.com:443/", "kratix", "s3://s3.amazonaws.com/kratix"},
		{"http://minio.internal:80", "kratix", "s3://minio.internal/kratix"},
		{"[::1]:9000", "kratix", "s3://[::1]:9000/kratix"},
	}
	for _, tt := range tests {
		t.Run(tt.endpoint, func(t *testing.T) {
			l := BucketLocation(tt.endpoint, tt.bucket)
			if got := l.String(); got != tt.want {
				t.Errorf("BucketLocation(%q, %q) = %q, want %q", tt.endpoint, tt.bucket, got, tt.want)
			}
			if l.Kind != KindBucket || l.Bucket != tt.bucket || l.Branch != "" {
				t.Errorf("BucketLocation(%q, %q) = %+v", tt.endpoint, tt.bucket, l)
			}
		})
	}
}

func TestBucketLocationDifferences(t *testing.T) {
	tests := []struct {
		name string
		a, b Location
	}{
		{"other host", BucketLocation("minio-a:9000", "kratix"), BucketLocation("minio-b:9000", "kratix")},
		{"other port", BucketLocation("minio:9000", "kratix"), BucketLocation("minio:9001", "kratix")},
		{"other bucket", BucketLocation("minio:9000", "kratix"), BucketLocation("minio:9000", "kratix-2")},
		{"bucket names keep their case", BucketLocation("minio:9000", "kratix"), BucketLocation("minio:9000", "Kratix")},
		{"a bucket is not a repository", BucketLocation("example.com", "org"), GitLocation("https://example.com/org", "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.a == tt.b || tt.a.String() == tt.b.String() {
				t.Errorf("%q and %q are one location", tt.a, tt.b)
			}
		})
	}
}

// Every spelling in a group is the same repository branch, with the group's String.
func TestGitLocationEquivalences(t *testing.T) {
	type spelling struct{ url, branch string }
	tests := []struct {
		name      string
		want      string
		spellings []spelling
	}{
		{"https", "git+https://github.com/org/repo@main", []spelling{
			{"https://github.com/org/repo", ""},
			{"https://github.com/org/repo", "main"},
			{"https://github.com/org/repo", "refs/heads/main"},
			{"https://github.com/org/repo/", "main"},
			{"https://github.com/org/repo.git", "main"},
			{"https://github.com/org/repo.git/", "main"},
			{"HTTPS://GitHub.COM/org/repo.git", "main"},
			{"https://github.com:443/org/repo", "main"},
			{"https://github.com/org/repo#readme", "main"},
			{"https://x-access-token@github.com/org/repo.git", "main"},
		}},
		{"http with its default port", "git+http://gitea.internal/org/repo@dev", []spelling{
			{"http://gitea.internal/org/repo", "dev"},
			{"http://gitea.internal:80/org/repo.git", "dev"},
			{"HTTP://Gitea.Internal/org/repo/", "refs/heads/dev"},
		}},
		{"a port that is not the default is kept", "git+https://gitea.internal:3000/org/repo@main", []spelling{
			{"https://gitea.internal:3000/org/repo.git", ""},
			{"https://Gitea.Internal:3000/org/repo", "main"},
		}},
		{"ssh and scp-like", "git+ssh://git@github.com/org/repo@main", []spelling{
			{"git@github.com:org/repo.git", ""},
			{"git@github.com:org/repo", "main"},
			{"git@GitHub.com:org/repo.git/", "main"},
			{"git@github.com:/org/repo.git", "main"},
			{"ssh://git@github.com/org/repo.git", "main"},
			{"ssh://git@github.com:22/org/repo", "main"},
			{"SSH://git@GITHUB.com/org/repo/", "main"},
			{"git+ssh://git@github.com/org/repo.git", "main"},
			{"ssh+git://git@github.com/org/repo.git", "main"},
		}},
		{"ssh on another port", "git+ssh://git@gitea.internal:2222/org/repo@main", []spelling{
			{"ssh://git@gitea.internal:2222/org/repo.git", ""},
			{"ssh://git@Gitea.Internal:2222/org/repo", ""},
		}},
		{"scp-like with an IPv6 host", "git+ssh://git@[::1]/org/repo@main", []spelling{
			{"git@[::1]:org/repo.git", ""},
			{"ssh://git@[::1]:22/org/repo", ""},
		}},
		{"file", "git+file:///tmp/repos/kratix@main", []spelling{
			{"file:///tmp/repos/kratix", ""},
			{"file:///tmp/repos/kratix/", ""},
			{"file:///tmp/repos/kratix.git", ""},
			{"file:///tmp/repos/kratix/.git", ""},
			{"file:///tmp//repos/./kratix", ""},
			{"file:///tmp/other/../repos/kratix", ""},
			{"file://localhost/tmp/repos/kratix", ""},
			{"/tmp/repos/kratix", ""},
			{"/tmp/repos//kratix/", ""},
		}},
		{"percent-encoding", "git+https://example.com/org/my~repo@main", []spelling{
			{"https://example.com/org/my~repo", ""},
			{"https://example.com/org/my%7Erepo", ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := GitLocation(tt.spellings[0].url, tt.spellings[0].branch)
			for _, s := range tt.spellings {
				l := GitLocation(s.url, s.branch)
				if got := l.String(); got != tt.want {
					t.Errorf("GitLocation(%q, %q) = %q, want %q", s.url, s.branch, got, tt.want)
				}
				if l != first {
					t.Errorf("GitLocation(%q, %q) = %+v, not equal to %+v", s.url, s.branch, l, first)
				}
			}
		})
	}
}

func TestGitLocationDifferences(t *testing.T) {
	tests := []struct {
		name string
		a, b Location
	}{
		{"other host", GitLocation("https://github.com/org/repo", ""), GitLocation("https://gitlab.com/org/repo", "")},
		{"other port", GitLocation("https://gitea:3000/org/repo", ""), GitLocation("https://gitea:3001/org/repo", "")},
		{"other branch", GitLocation("https://github.com/org/repo", "main"), GitLocation("https://github.com/org/repo", "dev")},
		{"default branch is main, not master", GitLocation("https://github.com/org/repo", ""), GitLocation("https://github.com/org/repo", "master")},
		{"other repository", GitLocation("https://github.com/org/repo", ""), GitLocation("https://github.com/org/repo2", "")},
		{"other organisation", GitLocation("https://github.com/org/repo", ""), GitLocation("https://github.com/org2/repo", "")},
		{"a nested path", GitLocation("https://gitlab.com/group/repo", ""), GitLocation("https://gitlab.com/group/sub/repo", "")},
		{"the case of a repository path", GitLocation("https://github.com/Org/Repo", ""), GitLocation("https://github.com/org/repo", "")},
		{"the case of an scp-like path", GitLocation("git@github.com:Org/repo.git", ""), GitLocation("git@github.com:org/repo.git", "")},
		{"the case of a branch", GitLocation("https://github.com/org/repo", "Main"), GitLocation("https://github.com/org/repo", "main")},
		{"other ssh user", GitLocation("ssh://git@gitea/org/repo", ""), GitLocation("ssh://alice@gitea/org/repo", "")},
		{"ssh without a user", GitLocation("ssh://gitea/org/repo", ""), GitLocation("ssh://git@gitea/org/repo", "")},
		{"other file path", GitLocation("file:///tmp/a", ""), GitLocation("file:///tmp/b", "")},
		{"file paths keep their case", GitLocation("file:///tmp/Repo", ""), GitLocation("file:///tmp/repo", "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.a == tt.b || tt.a.String() == tt.b.String() {
				t.Errorf("%q and %q are one location", tt.a, tt.b)
			}
		})
	}
}

// A password given in a URL, by mistake or in a malformed URL, never reaches the location: its
// String goes into plans and error messages.
func TestGitLocationDropsPasswords(t *testing.T) {
	tests := []struct {
		url, want string
	}{
		{"https://user:s3cret@github.com/org/repo.git", "git+https://github.com/org/repo@main"},
		{"https://:s3cret@github.com/org/repo.git", "git+https://github.com/org/repo@main"},
		{"http://user:s3cret@gitea.internal/org/repo", "git+http://gitea.internal/org/repo@main"},
		{"ssh://git:s3cret@github.com/org/repo.git", "git+ssh://git@github.com/org/repo@main"},
		{"git:s3cret@github.com:org/repo.git", "git+ssh://git@github.com/org/repo@main"},
		{"https://user:s3 cret@github.com/org/repo.git", "git+https://github.com/org/repo@main"}, // not parseable
		{"https://user:s3cret@github.com:port/org/repo.git", "git+https://github.com:port/org/repo@main"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := GitLocation(tt.url, "").String()
			if strings.Contains(got, "s3") || got != tt.want {
				t.Errorf("GitLocation(%q) = %q, want %q", tt.url, got, tt.want)
			}
		})
	}
}

func TestLocationString(t *testing.T) {
	tests := []struct {
		l    Location
		want string
	}{
		{BucketLocation("127.0.0.1:9000", "kratix"), "s3://127.0.0.1:9000/kratix"},
		{GitLocation("https://host/org/repo", ""), "git+https://host/org/repo@main"},
		{GitLocation("git@host:org/repo.git", "dev"), "git+ssh://git@host/org/repo@dev"},
		{GitLocation("file:///srv/git/kratix.git", ""), "git+file:///srv/git/kratix@main"},
		{Location{}, ""},
	}
	for _, tt := range tests {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.l, got, tt.want)
		}
	}
}

func TestCleanStorePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{".", ""},
		{"/", ""},
		{"./", ""},
		{"//", ""},
		{"team", "team"},
		{"team/", "team"},
		{"/team", "team"},
		{"./team", "team"},
		{"a//b", "a/b"},
		{"a/./b/", "a/b"},
		{"Team", "Team"},
	}
	for _, tt := range tests {
		if got := CleanStorePath(tt.in); got != tt.want {
			t.Errorf("CleanStorePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
