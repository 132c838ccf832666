// Package testinfra starts real servers on loopback for the provider's tests: a MinIO server
// (the S3-compatible store the provider writes to) and a Git server that speaks smart HTTP
// (git's own http-backend behind basic auth) and SSH (an in-process server with key auth that
// runs git's own upload-pack and receive-pack).
//
// Nothing here is a fake: the servers are the programs users run, so a test that passes against
// them says something about production. Each server listens on 127.0.0.1 on a free port, keeps
// its files in a temporary folder, and removes them and ends its processes on Stop.
//
// The Git server also offers readers (ReadFile, ListFiles, CommitCount, CommitMessages) and a
// writer (PushFile, DeleteFile) built on the git CLI against the bare repositories, so that tests
// check what the provider wrote with a client that shares no code with it.
//
// Needs: git (with git-http-backend) on PATH; for MinIO, a Go toolchain the first time, to build
// the pinned MinIO (see MinIOModule and MinIOBinary).
package testinfra
