
live {
  estate = "acme"
}

resource "aws_iam_user" "deploy" {
  name = "deploy"
  path = "/ci/"
}

resource "random_id" "suffix" {
  byte_length = 2
}

resource "aws_s3_bucket" "data" {
  bucket = "acme-new"
  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  lifecycle {
    create_before_destroy = true
  }
}
