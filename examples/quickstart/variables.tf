variable "name" {
  type        = string
  default     = "quickstart"
  description = "Prefix of every name in the estate"
}

variable "vpc_cidr" {
  type    = string
  default = "10.20.0.0/16"
}

variable "subnet_count" {
  type        = number
  default     = 3
  description = "How many subnets"
}

variable "public_subnet_count" {
  type        = number
  default     = 2
  description = "How many of the subnets (the first ones) route to the internet gateway"
}
