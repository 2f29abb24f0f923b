# The quickstart estate: a small network, a bucket and an IAM role, applied to the embedded simulated
# cloud (no account needed). Every object liveplan creates carries the tags `tofu-estate` and
# `tofu-address`, which is how the next plan finds it again without a state file.

live {
  estate = "quickstart"
}

resource "random_id" "suffix" {
  byte_length = 4
}

resource "aws_vpc" "main" {
  cidr_block           = var.vpc_cidr
  enable_dns_hostnames = true
  tags                 = { Name = "${var.name}-vpc" }
}

# A count set: raising `subnet_count` adds one subnet, lowering it destroys the highest one only (every
# other subnet keeps its index: liveplan binds count members by the `tofu-slot` tag, not by position).
resource "aws_subnet" "public" {
  count             = var.subnet_count
  vpc_id            = aws_vpc.main.id
  cidr_block        = cidrsubnet(var.vpc_cidr, 8, count.index)
  availability_zone = "us-east-1a"
  tags              = { Name = format("%s-public-%d", var.name, count.index) }
}

resource "aws_internet_gateway" "gw" {
  vpc_id = aws_vpc.main.id
  tags   = { Name = "${var.name}-gw" }
}

resource "aws_route_table" "public" {
  vpc_id = aws_vpc.main.id
  tags   = { Name = "${var.name}-public" }
}

resource "aws_route" "internet" {
  route_table_id         = aws_route_table.public.id
  destination_cidr_block = "0.0.0.0/0"
  gateway_id             = aws_internet_gateway.gw.id
}

# The first `public_subnet_count` subnets route to the internet; the others stay private.
resource "aws_route_table_association" "public" {
  count          = var.public_subnet_count
  subnet_id      = aws_subnet.public[count.index].id
  route_table_id = aws_route_table.public.id
}

resource "aws_s3_bucket" "artifacts" {
  bucket = "${var.name}-artifacts"
  tags   = { Purpose = "build artifacts" }
}

resource "aws_iam_role" "deployer" {
  name = "${var.name}-deployer"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Action    = "sts:AssumeRole"
      Principal = { Service = "codebuild.amazonaws.com" }
    }]
  })
  description = "Deploys the quickstart artifacts"
}
