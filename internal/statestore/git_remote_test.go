package statestore

import (
	"context"
	"errors"
	"io/fs"
	"testing"
)

func TestGitOverHTTPAndSSH(t *testing.T) {
	ctx := context.Background()
	srv := testGitServer(t)
	tests := []struct {
		name string
		cfg  func(repo string) GitConfig
		want Kind // "" for success
	}{
		{"http", func(r string) GitConfig {
			return GitConfig{URL: srv.HTTPURL(r), Username: srv.Username, Password: srv.Password}
		}, ""},
		{"http wrong password", func(r string) GitConfig {
			return GitConfig{URL: srv.HTTPURL(r), Username: srv.Username, Password: "wrong-password"}
		}, KindAuth},
		{"http no credentials", func(r string) GitConfig { return GitConfig{URL: srv.HTTPURL(r)} }, KindAuth},
		{"ssh", func(r string) GitConfig {
			return GitConfig{URL: srv.SSHURL(r), SSHPrivateKey: srv.SSHPrivateKey, KnownHosts: srv.KnownHosts}
		}, ""},
		{"ssh wrong host key", func(r string) GitConfig {
			return GitConfig{URL: srv.SSHURL(r), SSHPrivateKey: srv.SSHPrivateKey, KnownHosts: srv.WrongKnownHosts}
		}, KindHostKey},
		{"ssh no known_hosts", func(r string) GitConfig {
			return GitConfig{URL: srv.SSHURL(r), SSHPrivateKey: srv.SSHPrivateKey}
		}, KindHostKey},
		{"ssh host key ignored on request", func(r string) GitConfig {
			return GitConfig{URL: srv.SSHURL(r), SSHPrivateKey: srv.SSHPrivateKey, InsecureIgnoreHostKey: true}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := "r-" + randomSuffix()
			if err := srv.CreateRepo(repo, "main"); err != nil {
				t.Fatal(err)
			}
			s, err := NewPool().Git(tt.cfg(repo))
			if err != nil {
				t.Fatal(err)
			}
			checkErr := s.Check(ctx)
			_, applyErr := s.Apply(ctx, Change{Message: "Update from: kratix-canary", Put: map[string][]byte{"w/a.yaml": []byte("a\n")}})
			content, readErr := srv.ReadFile(repo, "main", "w/a.yaml")
			if tt.want == "" {
				if checkErr != nil || applyErr != nil || readErr != nil || string(content) != "a\n" {
					t.Fatalf("check %v, apply %v, read back %q %v", checkErr, applyErr, content, readErr)
				}
				return
			}
			if kindOf(checkErr) != tt.want || kindOf(applyErr) != tt.want {
				t.Errorf("check gave %v, apply gave %v; want kind %q from both", checkErr, applyErr, tt.want)
			}
			if !errors.Is(readErr, fs.ErrNotExist) {
				t.Errorf("a failed store wrote the file (read back: %v)", readErr)
			}
			if n, _ := srv.CommitCount(repo, "main"); n != 1 {
				t.Errorf("%d commits after a failure, want 1", n)
			}
		})
	}
}
