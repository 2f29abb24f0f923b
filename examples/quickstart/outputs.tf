output "vpc_id" {
  value = aws_vpc.main.id
}

output "subnet_ids" {
  value = aws_subnet.public[*].id
}

output "bucket_arn" {
  value = aws_s3_bucket.artifacts.arn
}

output "deploy_suffix" {
  value = random_id.suffix.hex
}
