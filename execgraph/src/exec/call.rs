//! The operations calls: one per opcode, with its operands taken from the payloads of its inputs, under
//! a permit of the parallelism limit unless cancellation came first.
//!
//! A call must never start once execution is cancelled, and never hold a permit while it waits for
//! anything but the call itself.

use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::Shared;
use super::cells::ValueSource;
use super::payload::{Mismatch, Outcome, Payload, arg};
use crate::diag::codes;
use crate::{Applied, Diagnostic, Family, OpCode};

pub(super) fn prepare_depose<F: Family>(
    shared: &Shared<F>,
    node: u32,
    args: &[Payload<F>],
) -> Outcome<F> {
    let operands = (|| Ok::<_, Mismatch>((arg(args, 0)?.plan()?, arg(args, 1)?.key()?)))();
    match operands {
        Ok((plan, key)) => match F::prepare_depose(plan, key) {
            Ok(prepared) => Outcome::ok(Payload::Plan(Arc::new(prepared))),
            Err(diagnostic) => Outcome::failed(vec![shared.with_op_address(diagnostic, node)]),
        },
        Err(Mismatch) => Outcome::failed(vec![shared.invalid_operand(node)]),
    }
}

pub(super) async fn run_op<F: Family>(
    shared: Arc<Shared<F>>,
    node: u32,
    code: OpCode,
    args: Vec<Payload<F>>,
    semaphore: Arc<Semaphore>,
    cancel: CancellationToken,
) -> (u32, Outcome<F>) {
    // Try the uncontended path first: awaiting tokio's semaphore or the token spends the task's cooperative
    // budget, and every operation future shares the one task that runs `execute`.
    let permit = if !code.holds_permit() || cancel.is_cancelled() {
        None
    } else {
        match Arc::clone(&semaphore).try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) => tokio::select! {
                biased;
                _ = cancel.cancelled() => None,
                permit = semaphore.acquire_owned() => permit.ok(),
            },
        }
    };
    if cancel.is_cancelled() {
        return (node, Outcome::failed(vec![shared.cancelled(node)]));
    }
    let outcome = match call(&shared, node, code, &args).await {
        Ok(outcome) => outcome,
        Err(Mismatch) => Outcome::failed(vec![shared.invalid_operand(node)]),
    };
    drop(permit);
    (node, outcome)
}

async fn call<F: Family>(
    shared: &Arc<Shared<F>>,
    node: u32,
    code: OpCode,
    args: &[Payload<F>],
) -> Result<Outcome<F>, Mismatch> {
    let ops = &*shared.ops;
    let object = |o: F::Object| Payload::Object(Arc::new(o));
    Ok(match code {
        OpCode::ResourceInstancePrior => {
            let result = ops.resource_instance_prior(arg(args, 0)?.addr()?).await;
            Outcome::from_result(result, |o| o.map_or(Payload::Nil, object))
        }
        OpCode::ResourceInstanceCurrentMeta => {
            let prior = arg(args, 1)?.object()?.map(|o| &**o);
            let result = ops
                .resource_instance_current_meta(arg(args, 0)?.addr()?, prior)
                .await;
            Outcome::from_result(result, |m| Payload::Meta(Arc::new(m)))
        }
        OpCode::ResourceInstanceDesired => {
            let values = ValueSource {
                shared: Arc::clone(shared),
                requester: Some(node),
            };
            let result = ops
                .resource_instance_desired(arg(args, 0)?.meta()?, &values)
                .await;
            Outcome::from_result(result, |d| Payload::Desired(Arc::new(d)))
        }
        OpCode::ManagedFinalPlan => {
            let meta = arg(args, 0)?.meta()?;
            let desired = arg(args, 1)?.desired()?;
            let prior = arg(args, 2)?.object()?.map(|o| &**o);
            let planned = arg(args, 3)?.value()?;
            let result = ops.managed_final_plan(meta, desired, prior, planned).await;
            Outcome::from_result(result, |p| Payload::Plan(Arc::new(p)))
        }
        OpCode::ManagedApply => {
            let plan = arg(args, 0)?.plan()?;
            let fallback = arg(args, 1)?.object()?;
            let applied = ops.managed_apply(plan, fallback.map(|o| &**o)).await;
            apply_outcome(shared, node, applied, fallback)
        }
        OpCode::ManagedPrepareDepose => prepare_depose(shared, node, args),
        OpCode::ManagedPerformDepose => {
            let current = arg(args, 0)?.object()?.map(|o| &**o);
            let result = ops
                .managed_perform_depose(current, arg(args, 1)?.plan()?)
                .await;
            Outcome::from_result(result, object)
        }
        OpCode::ManagedDeposedMeta => {
            let prior = arg(args, 2)?.object()?.map(|o| &**o);
            let result = ops
                .managed_deposed_meta(arg(args, 0)?.addr()?, arg(args, 1)?.key()?, prior)
                .await;
            Outcome::from_result(result, |m| Payload::Meta(Arc::new(m)))
        }
        OpCode::ManagedAlreadyDeposed => {
            let result = ops
                .managed_already_deposed(arg(args, 0)?.addr()?, arg(args, 1)?.key()?)
                .await;
            Outcome::from_result(result, object)
        }
        OpCode::ManagedChangeAddr => {
            let current = arg(args, 0)?.object()?.map(|o| &**o);
            let result = ops
                .managed_change_addr(current, arg(args, 1)?.addr()?)
                .await;
            Outcome::from_result(result, object)
        }
        OpCode::DataRead => {
            let meta = arg(args, 0)?.meta()?;
            let desired = arg(args, 1)?.desired()?;
            let planned = arg(args, 2)?.value()?;
            let result = ops.data_read(meta, desired, planned).await;
            Outcome::from_result(result, object)
        }
    })
}

/// The outcome of an apply. With a fallback (the create leg of a create-before-destroy replace) and no new
/// object, the deposed object is current again and the node fails, so the destroy of the deposed object
/// (which waits for this node) does not run.
fn apply_outcome<F: Family>(
    shared: &Shared<F>,
    node: u32,
    applied: Applied<F::Object>,
    fallback: Option<&Arc<F::Object>>,
) -> Outcome<F> {
    let Applied {
        object,
        mut diagnostics,
    } = applied;
    let failed = diagnostics.iter().any(Diagnostic::is_error);
    match (object, fallback) {
        (Some(object), _) if !failed => Outcome {
            result: Ok(Payload::Object(Arc::new(object))),
            restored: None,
            diagnostics,
        },
        (None, Some(fallback)) => {
            if !failed {
                let diagnostic = Diagnostic::error(
                    codes::APPLY_FAILED,
                    "the replacement object was not created",
                    format!(
                        "{} produced no object, so the deposed object is current again and was not destroyed. \
                         Run apply again to retry the replacement.",
                        shared.data().describe_op(node)
                    ),
                );
                diagnostics.push(shared.with_op_address(diagnostic, node));
            }
            Outcome {
                result: Err(()),
                restored: Some(Arc::clone(fallback)),
                diagnostics,
            }
        }
        (None, None) if !failed => Outcome {
            result: Ok(Payload::Nil),
            restored: None,
            diagnostics,
        },
        _ => Outcome {
            result: Err(()),
            restored: None,
            diagnostics,
        },
    }
}
