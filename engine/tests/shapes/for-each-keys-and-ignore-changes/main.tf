
live {
  estate = "acme"
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  lifecycle {
    ignore_changes = [enable_dns_support]
  }
}

resource "aws_subnet" "s" {
  for_each   = { "alice.smith" = 1, "bob" = 2 }
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.0.0.0/16", 8, each.value)
}
