
live {
  estate = "acme"
}

resource "aws_s3_bucket" "data" {
  bucket = "acme-data"
}

resource "aws_s3_bucket" "web" {
  bucket = "acme-web"
}
