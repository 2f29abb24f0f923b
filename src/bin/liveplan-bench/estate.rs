//! The estates the benchmarks plan and apply, generated as configuration text for any size `N`.
//!
//! Each estate is a handful of `count` blocks whose counts add up to exactly `N` instances, so the
//! configuration stays a few dozen lines however large the estate. The mix of a converged estate follows
//! the performance spec (40% marker types, 30% client-named, 20% parent-derived, 10% record-backed); the
//! greenfield estate is the VPC family as a dependency graph. This module only writes text: it never
//! reads or changes a live system.

use std::fmt::Write as _;

/// The estate name every generated configuration declares.
pub const ESTATE: &str = "bench";

/// One `count` block of a generated estate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    /// `aws_vpc.net`: marker path.
    Vpc,
    /// `aws_subnet.sn`: marker path, spread over the VPCs.
    Subnet,
    /// `aws_security_group.sg`: marker path.
    SecurityGroup,
    /// `aws_route_table.rt`: marker path.
    RouteTable,
    /// `aws_eip.ip`: marker path.
    Eip,
    /// `aws_s3_bucket.b`: client-named.
    Bucket,
    /// `aws_iam_role.r`: client-named, outside the tagging index.
    Role,
    /// `aws_cloudwatch_log_group.lg`: client-named.
    LogGroup,
    /// `aws_route.rte`: parent-derived, one per route table at most.
    Route,
    /// `aws_route_table_association.a`: parent-derived, one per subnet at most.
    Association,
    /// `aws_s3_bucket_versioning.v`: parent-derived, one per bucket at most.
    Versioning,
    /// `random_id.id`: record-backed.
    RandomId,
    /// `terraform_data.d`: record-backed.
    TerraformData,
}

impl Block {
    /// The resource type.
    pub fn type_name(self) -> &'static str {
        match self {
            Block::Vpc => "aws_vpc",
            Block::Subnet => "aws_subnet",
            Block::SecurityGroup => "aws_security_group",
            Block::RouteTable => "aws_route_table",
            Block::Eip => "aws_eip",
            Block::Bucket => "aws_s3_bucket",
            Block::Role => "aws_iam_role",
            Block::LogGroup => "aws_cloudwatch_log_group",
            Block::Route => "aws_route",
            Block::Association => "aws_route_table_association",
            Block::Versioning => "aws_s3_bucket_versioning",
            Block::RandomId => "random_id",
            Block::TerraformData => "terraform_data",
        }
    }

    /// The block the instances of this one need one of (VPC of a subnet, table of a route, ...), if any.
    fn needs(self) -> Option<Block> {
        match self {
            Block::Subnet | Block::SecurityGroup | Block::RouteTable => Some(Block::Vpc),
            Block::Route => Some(Block::RouteTable),
            Block::Association => Some(Block::Subnet),
            Block::Versioning => Some(Block::Bucket),
            _ => None,
        }
    }

    /// Whether each instance needs its own instance of [`Block::needs`] (a route per table, an
    /// association per subnet, a versioning per bucket), rather than sharing one.
    fn one_to_one(self) -> bool {
        matches!(self, Block::Route | Block::Association | Block::Versioning)
    }
}

/// The blocks of an estate and how many instances each has, in declaration order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mix(pub Vec<(Block, usize)>);

impl Mix {
    /// The instances of `block` (zero when the estate has none).
    pub fn count(&self, block: Block) -> usize {
        self.0
            .iter()
            .find(|(b, _)| *b == block)
            .map_or(0, |(_, n)| *n)
    }

    /// All instances.
    pub fn total(&self) -> usize {
        self.0.iter().map(|(_, n)| n).sum()
    }

    /// Splits `n` instances over `weights` (parts of 100) by largest remainder, then moves instances so
    /// that every block's needs hold: a block that needs another gets at least one of it, and a one-to-one
    /// child never outnumbers its parent. Moved instances go to the `spill` block (which needs nothing).
    fn split(n: usize, weights: &[(Block, usize)], spill: Block) -> Mix {
        let total_weight: usize = weights.iter().map(|(_, w)| w).sum();
        let mut counts: Vec<(Block, usize, usize)> = weights
            .iter()
            .map(|&(b, w)| (b, n * w / total_weight, n * w % total_weight))
            .collect();
        let assigned: usize = counts.iter().map(|(_, c, _)| c).sum();
        let mut order: Vec<usize> = (0..counts.len()).collect();
        // Largest remainder first; ties go to the block declared first (parents come before children).
        order.sort_by(|&a, &b| counts[b].2.cmp(&counts[a].2).then(a.cmp(&b)));
        for &i in order.iter().take(n - assigned) {
            counts[i].1 += 1;
        }
        let mut mix = Mix(counts.into_iter().map(|(b, c, _)| (b, c)).collect());
        mix.fix_needs(spill);
        mix
    }

    fn set(&mut self, block: Block, n: usize) {
        if let Some(entry) = self.0.iter_mut().find(|(b, _)| *b == block) {
            entry.1 = n;
        }
    }

    fn fix_needs(&mut self, spill: Block) {
        let blocks: Vec<Block> = self.0.iter().map(|(b, _)| *b).collect();
        for block in blocks {
            let Some(parent) = block.needs() else {
                continue;
            };
            let (mine, theirs) = (self.count(block), self.count(parent));
            if mine == 0 {
                continue;
            }
            if theirs == 0 {
                // Give the parent one instance of this block.
                self.set(block, mine - 1);
                self.set(parent, 1);
            }
            let (mine, theirs) = (self.count(block), self.count(parent));
            if block.one_to_one() && mine > theirs {
                self.set(block, theirs);
                self.set(spill, self.count(spill) + mine - theirs);
            }
        }
    }
}

/// The mix of a converged estate of `n` instances: per 100, 1 VPC, 16 subnets, 10 security groups,
/// 5 route tables, 8 elastic IPs (40 marker); 10 buckets, 10 roles, 10 log groups (30 client-named);
/// 5 routes, 8 associations, 7 bucket versionings (20 parent-derived); 5 random ids, 5 `terraform_data`
/// (10 record-backed).
pub fn converged_mix(n: usize) -> Mix {
    Mix::split(
        n,
        &[
            (Block::Vpc, 1),
            (Block::Subnet, 16),
            (Block::SecurityGroup, 10),
            (Block::RouteTable, 5),
            (Block::Eip, 8),
            (Block::Bucket, 10),
            (Block::Role, 10),
            (Block::LogGroup, 10),
            (Block::Route, 5),
            (Block::Association, 8),
            (Block::Versioning, 7),
            (Block::RandomId, 5),
            (Block::TerraformData, 5),
        ],
        Block::RandomId,
    )
}

/// The mix of the greenfield estate of `n` instances: per 100, 2 VPCs, 38 subnets, 20 route tables,
/// 20 routes and 20 associations, so every chain is VPC, then subnet or route table, then route or
/// association.
pub fn greenfield_mix(n: usize) -> Mix {
    Mix::split(
        n,
        &[
            (Block::Vpc, 2),
            (Block::Subnet, 38),
            (Block::RouteTable, 20),
            (Block::Route, 20),
            (Block::Association, 20),
        ],
        Block::Subnet,
    )
}

/// `n` buckets and nothing else.
pub fn buckets_mix(n: usize) -> Mix {
    Mix(vec![(Block::Bucket, n)])
}

/// How the instances of a block are declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Keying {
    /// `count = n`: instances `[0]` to `[n-1]`, bound by slots.
    Count,
    /// `for_each` over the keys `"i0"` to `"i<n-1>"`, each with its index as value.
    ForEach,
}

impl Keying {
    /// The meta-argument line that makes `n` instances.
    fn repetition(self, n: usize) -> String {
        match self {
            Keying::Count => format!("  count = {n}\n"),
            Keying::ForEach => {
                format!("  for_each = {{ for i in range({n}) : format(\"i%d\", i) => i }}\n")
            }
        }
    }

    /// The instance's index as an expression.
    fn index(self) -> &'static str {
        match self {
            Keying::Count => "count.index",
            Keying::ForEach => "each.value",
        }
    }

    /// A reference to the instance of `block` at index `expr`.
    fn at(self, block: Block, expr: &str) -> String {
        let (t, name) = (block.type_name(), block_name(block));
        match self {
            Keying::Count => format!("{t}.{name}[{expr}]"),
            Keying::ForEach => format!("{t}.{name}[format(\"i%d\", {expr})]"),
        }
    }
}

/// The configuration text (`main.tf`) of a mix.
pub fn configuration(mix: &Mix, keying: Keying) -> String {
    let mut out = format!("live {{\n  estate = \"{ESTATE}\"\n}}\n");
    let vpcs = mix.count(Block::Vpc);
    let tables = mix.count(Block::RouteTable);
    let i = keying.index();
    let vpc_of = keying.at(Block::Vpc, &format!("{i} % {vpcs}"));
    for &(block, n) in &mix.0 {
        if n == 0 {
            continue;
        }
        let body = match block {
            // A /20 per VPC out of 10.0.0.0/8 (4,096 VPCs), a /28 per subnet inside it (256 per VPC).
            Block::Vpc => format!("  cidr_block = cidrsubnet(\"10.0.0.0/8\", 12, {i})\n"),
            Block::Subnet => format!(
                "  vpc_id     = {vpc_of}.id\n  \
                 cidr_block = cidrsubnet(\"10.0.0.0/8\", 20, ({i} % {vpcs}) * 256 + ({i} - {i} % {vpcs}) / {vpcs})\n"
            ),
            Block::SecurityGroup => {
                format!("  name   = format(\"bench-sg-%d\", {i})\n  vpc_id = {vpc_of}.id\n")
            }
            Block::RouteTable => format!("  vpc_id = {vpc_of}.id\n"),
            Block::Eip => "  domain = \"vpc\"\n".to_owned(),
            Block::Bucket => format!("  bucket = format(\"bench-bucket-%d\", {i})\n"),
            Block::Role => format!(
                "  name               = format(\"bench-role-%d\", {i})\n  \
                 assume_role_policy = jsonencode({{ Version = \"2012-10-17\", Statement = [] }})\n"
            ),
            Block::LogGroup => format!(
                "  name              = format(\"/bench/lg-%d\", {i})\n  retention_in_days = 7\n"
            ),
            Block::Route => format!(
                "  route_table_id         = {}.id\n  destination_cidr_block = \"0.0.0.0/0\"\n",
                keying.at(Block::RouteTable, i)
            ),
            Block::Association => format!(
                "  subnet_id      = {}.id\n  route_table_id = {}.id\n",
                keying.at(Block::Subnet, i),
                keying.at(Block::RouteTable, &format!("{i} % {tables}"))
            ),
            Block::Versioning => format!(
                "  bucket = {}.id\n  versioning_configuration {{\n    status = \"Enabled\"\n  }}\n",
                keying.at(Block::Bucket, i)
            ),
            Block::RandomId => "  byte_length = 4\n".to_owned(),
            Block::TerraformData => format!("  input = {i}\n"),
        };
        let _ = write!(
            out,
            "\nresource \"{}\" \"{}\" {{\n{}{body}}}\n",
            block.type_name(),
            block_name(block),
            keying.repetition(n)
        );
    }
    out
}

fn block_name(block: Block) -> &'static str {
    match block {
        Block::Vpc => "net",
        Block::Subnet => "sn",
        Block::SecurityGroup => "sg",
        Block::RouteTable => "rt",
        Block::Eip => "ip",
        Block::Bucket => "b",
        Block::Role => "r",
        Block::LogGroup => "lg",
        Block::Route => "rte",
        Block::Association => "a",
        Block::Versioning => "v",
        Block::RandomId => "id",
        Block::TerraformData => "d",
    }
}
