//! Panics inside long sweeps, caught and reported as the failure of the one run that panicked.
//!
//! A panic is a bug in pagelab. Where many independent runs share one command (an experiment's sweep), one
//! run's bug should not throw away the others' work, and its message should reach the user as that run's
//! error, once, not as a thread's backtrace notice printed over the progress bar. [`quietly`] replaces the
//! process's panic hook for the duration of a sweep with one that records the message and its location for
//! the panicking thread; [`catch`] turns a run's panic into that text.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;

thread_local! {
    /// The last panic on this thread, as the hook formatted it (message and location).
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Run `f` with a panic hook that records each panic for [`catch`] instead of printing it, then put the
/// previous hook back (also when `f` itself panics).
pub fn quietly<T>(f: impl FnOnce() -> T) -> T {
    // One sweep at a time swaps the hook: two overlapping swaps would restore each other's hooks out of
    // order and leave the recording hook in place for good.
    static SWAP: Mutex<()> = Mutex::new(());
    let _one_at_a_time = SWAP.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        let text = info.to_string();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
    }));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(previous);
    result.unwrap_or_else(|payload| panic::resume_unwind(payload))
}

/// `f`'s value, or the text of the panic that ended it. A run shares no state with the others that a panic
/// could leave half-changed (each builds its own simulation), which is why unwinding past it is safe.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    LAST_PANIC.with(|p| p.borrow_mut().take());
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let recorded = LAST_PANIC.with(|p| p.borrow_mut().take());
        recorded.unwrap_or_else(|| payload_text(payload.as_ref()))
    })
}

/// A panic's message from its payload (the hook's record has the location too; this is the fallback when
/// no hook of ours saw the panic).
fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_runs_error_with_its_location() {
        let caught = quietly(|| catch(|| -> u32 { panic!("frame table over capacity") }));
        let text = caught.expect_err("the panic is caught");
        assert!(text.contains("frame table over capacity"), "{text}");
        assert!(text.contains("panics.rs"), "the location is kept: {text}");
        assert_eq!(quietly(|| catch(|| 7)), Ok(7));
    }

    #[test]
    fn without_our_hook_the_payload_still_names_the_panic() {
        let caught: Result<(), String> = catch(|| std::panic::panic_any(String::from("owned message")));
        // Another test's hook may be in place; either way the message survives.
        assert!(caught.expect_err("caught").contains("owned message"));
    }
}
