# A MinIO (or any S3-compatible) bucket. Credentials come from the provider's `minio` secret.
resource "kratix_state_store" "minio" {
  name       = "minio"
  secret_ref = "minio"
  bucket = {
    endpoint    = "minio.platform.internal:9000"
    bucket_name = "kratix"
    insecure    = true # plain HTTP inside the platform network
  }
}

# A Git repository over SSH, with a deploy key and the host key pinned in the `github` secret.
resource "kratix_state_store" "github" {
  name       = "github"
  path       = "clusters"
  secret_ref = "github"
  git = {
    url    = "git@github.com:acme/gitops.git"
    branch = "main"
    author = {
      name  = "platform-bot"
      email = "platform@acme.example"
    }
  }
}

# On AWS, with the AWS credential chain: AWS_* variables, ~/.aws profiles and SSO, web identity
# (HCP Terraform dynamic credentials), container and instance roles. Nothing to put in secrets.
resource "kratix_state_store" "s3" {
  name = "s3"
  bucket = {
    endpoint    = "s3.eu-west-2.amazonaws.com"
    bucket_name = "acme-kratix"
    region      = "eu-west-2"
    auth_method = "IAM"
  }
}

# A named profile (here an SSO profile, after `aws sso login --profile platform`), from which a
# role in the bucket's account is assumed.
resource "kratix_state_store" "s3_cross_account" {
  name = "s3-cross-account"
  bucket = {
    endpoint    = "s3.eu-west-2.amazonaws.com"
    bucket_name = "acme-kratix-prod"
    region      = "eu-west-2"
    auth_method = "IAM"
    profile     = "platform"
    assume_role = {
      role_arn     = "arn:aws:iam::123456789012:role/kratix-state"
      external_id  = "kratix-platform"
      session_name = "kratix-terraform"
      duration     = "1h"
    }
  }
}
