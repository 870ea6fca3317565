//! The writer's end of the pipeline. The reader numbers every message in
//! input order, the workers send them in whatever order they finish, and
//! [`in_order`] hands them on in their numbers' order, with at most
//! `capacity` messages in flight (back-pressure on the reader). A message
//! may come in parts (a chunk's games, a part at a time): its parts are
//! handed on in their order, and its slot is free once its last part is
//! written. A reader that panics, or a numbered message that never arrives,
//! makes the stage an error: the messages handed on are then not the whole
//! input.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// A part's place in the order: its message's number and its own.
type Place = (u64, u32);

/// Numbered items, in parts, that arrive in any order, handed on in their
/// order.
pub(super) struct Reorder<T> {
    /// Each part with whether it is its message's last.
    arrived: BTreeMap<Place, (bool, T)>,
    next: Place,
}

impl<T> Reorder<T> {
    pub(super) fn new() -> Reorder<T> {
        Reorder {
            arrived: BTreeMap::new(),
            next: (0, 0),
        }
    }

    /// Takes part `place` of a message, its last one if `last`.
    pub(super) fn arrive(&mut self, place: Place, last: bool, item: T) {
        self.arrived.insert(place, (last, item));
    }

    /// The next part in order, once it has arrived, and whether it ends its
    /// message.
    pub(super) fn pop(&mut self) -> Option<(bool, T)> {
        let (last, item) = self.arrived.remove(&self.next)?;
        self.next = if last {
            (self.next.0 + 1, 0)
        } else {
            (self.next.0, self.next.1 + 1)
        };
        Some((last, item))
    }

    /// How many messages were handed on whole.
    pub(super) fn handed(&self) -> u64 {
        self.next.0
    }

    /// How many arrived parts wait for an earlier one.
    pub(super) fn waiting(&self) -> usize {
        self.arrived.len()
    }

    /// Takes every part that waits for an earlier one.
    pub(super) fn drain(&mut self) -> impl Iterator<Item = (bool, T)> + use<T> {
        std::mem::take(&mut self.arrived).into_values()
    }
}

/// What travels to the writer.
struct Numbered<T> {
    place: Place,
    /// The message's last part: its slot, if it holds one, is freed.
    last: bool,
    /// The message holds a slot.
    slot: bool,
    /// `None` from a ticket dropped unsent.
    item: Option<T>,
}

/// The reader's side of the stage: numbers the messages and bounds the
/// ones in flight.
pub(super) struct Outbox<T> {
    tx: mpsc::Sender<Numbered<T>>,
    issued: Arc<AtomicU64>,
    slots: mpsc::Receiver<()>,
}

impl<T> Outbox<T> {
    /// Waits for a free slot and numbers the next message, which holds the
    /// slot until it is written; `None` once the writer is gone.
    pub(super) fn slot(&self) -> Option<Ticket<T>> {
        self.slots.recv().ok()?;
        Some(self.ticket(true))
    }

    /// Numbers the next message, which holds no slot (a source's end).
    pub(super) fn number(&self) -> Ticket<T> {
        self.ticket(false)
    }

    fn ticket(&self, slot: bool) -> Ticket<T> {
        Ticket {
            seq: self.issued.fetch_add(1, Ordering::SeqCst),
            part: 0,
            slot,
            tx: Some(self.tx.clone()),
        }
    }
}

/// A message's place in the order, to be sent from any thread, whole or
/// in parts.
pub(super) struct Ticket<T> {
    seq: u64,
    /// The number of the next part.
    part: u32,
    slot: bool,
    /// Until sent.
    tx: Option<mpsc::Sender<Numbered<T>>>,
}

impl<T> Ticket<T> {
    /// Sends the message, or its last part; one the writer no longer waits
    /// for is dropped.
    pub(super) fn send(mut self, item: T) {
        self.post(true, Some(item));
    }

    /// The place of the message's next part, which is not its last: the
    /// ticket goes on with the parts after it.
    pub(super) fn next_part(&mut self) -> Part<T> {
        let part = Part {
            place: (self.seq, self.part),
            slot: self.slot,
            tx: self.tx.clone(),
        };
        self.part += 1;
        part
    }

    fn post(&mut self, last: bool, item: Option<T>) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(Numbered {
                place: (self.seq, self.part),
                last,
                slot: self.slot,
                item,
            });
        }
    }
}

/// A ticket dropped unsent (the worker that held it panicked) tells the
/// writer that its message, or the rest of it, will never come.
impl<T> Drop for Ticket<T> {
    fn drop(&mut self) {
        self.post(true, None);
    }
}

/// A part of a message that is not its last (see [`Ticket::next_part`]).
/// Unsent, it is simply missing: the ticket's drop then says so.
pub(super) struct Part<T> {
    place: Place,
    slot: bool,
    tx: Option<mpsc::Sender<Numbered<T>>>,
}

impl<T> Part<T> {
    pub(super) fn send(self, item: T) {
        if let Some(tx) = self.tx {
            let _ = tx.send(Numbered {
                place: self.place,
                last: false,
                slot: self.slot,
                item: Some(item),
            });
        }
    }
}

/// The writer's side of the stage: the reorder buffer, and the slots it
/// frees as messages are written.
struct Inbox<T> {
    order: Reorder<(bool, T)>,
    slots: mpsc::SyncSender<()>,
    /// A message was dropped unsent: nothing after it can be written, so
    /// the rest are only taken, their slots freed, and the reader runs to
    /// its end instead of waiting for a slot forever.
    lost: bool,
}

impl<T> Inbox<T> {
    fn take(&mut self, n: Numbered<T>, write: &mut impl FnMut(T)) {
        // A part not written is dropped: a ticket it holds (the rest of its
        // message) then frees the slot.
        let free_at_end = |inbox: &Self, last: bool, slot: bool| {
            if last {
                inbox.free(slot);
            }
        };
        match n.item {
            Some(item) if !self.lost => {
                self.order.arrive(n.place, n.last, (n.slot, item));
                while let Some((last, (slot, item))) = self.order.pop() {
                    write(item);
                    free_at_end(self, last, slot);
                }
            }
            Some(_) => free_at_end(self, n.last, n.slot),
            None => {
                self.lost = true;
                self.free(n.slot);
                for (last, (slot, _)) in self.order.drain() {
                    free_at_end(self, last, slot);
                }
            }
        }
    }

    fn free(&self, slot: bool) {
        if slot {
            let _ = self.slots.send(());
        }
    }
}

/// Why the stage failed: the messages handed on are not the whole input.
#[derive(Debug, thiserror::Error)]
pub(super) enum StageError {
    #[error("cannot start the reader thread: {0}")]
    Spawn(#[source] std::io::Error),
    #[error("the reader thread panicked: {0}")]
    Panicked(String),
    /// Message `missing` (1-based) of the `numbered` ones never came.
    #[error("the reader's message {missing} of {numbered} never arrived")]
    Lost { missing: u64, numbered: u64 },
}

/// How the stage ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Ended {
    /// The reader returned and every message it numbered was handed on.
    Complete,
    /// `stop` was set and every message numbered so far was handed on.
    /// The reader, which stops reading then, has ended, or is stuck in a
    /// read past [`STOP_GRACE`] (standard input that gives nothing more):
    /// it is left to the end of the process.
    Stopped,
}

/// How long a stopped stage waits for its reader to end once every message
/// is handed on: a FIFO's reading looks at the stop flag this often and
/// more, so that no thread of a stopped run is left reading it.
const STOP_GRACE: Duration = Duration::from_millis(250);

/// Runs `read` on a thread of its own and hands the messages it numbers to
/// `write`, in their order, on this thread. `capacity` slots bound the
/// messages that hold one; a slot is free again once its message is
/// written.
pub(super) fn in_order<T: Send + 'static>(
    capacity: usize,
    stop: &AtomicBool,
    read: impl FnOnce(Outbox<T>) + Send + 'static,
    mut write: impl FnMut(T),
) -> Result<Ended, StageError> {
    let (slot_tx, slots) = mpsc::sync_channel::<()>(capacity);
    for _ in 0..capacity {
        let _ = slot_tx.send(());
    }
    let (tx, rx) = mpsc::channel::<Numbered<T>>();
    let issued = Arc::new(AtomicU64::new(0));
    let outbox = Outbox {
        tx,
        issued: issued.clone(),
        slots,
    };
    let reader = std::thread::Builder::new()
        .name("reader".to_owned())
        .spawn(move || read(outbox))
        .map_err(StageError::Spawn)?;
    let mut inbox = Inbox {
        order: Reorder::new(),
        slots: slot_tx,
        lost: false,
    };
    let lost = |inbox: &Inbox<T>| StageError::Lost {
        missing: inbox.order.handed() + 1,
        numbered: issued.load(Ordering::SeqCst),
    };
    let mut all_handed_at: Option<std::time::Instant> = None;
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(n) => inbox.take(n, &mut write),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) if stop.load(Ordering::SeqCst) => {
                if inbox.lost {
                    return Err(lost(&inbox));
                }
                if inbox.order.handed() == issued.load(Ordering::SeqCst)
                    && all_handed_at
                        .get_or_insert_with(std::time::Instant::now)
                        .elapsed()
                        >= STOP_GRACE
                {
                    return Ok(Ended::Stopped);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
    if let Err(panic) = reader.join() {
        return Err(StageError::Panicked(
            panic_message(panic.as_ref()).to_owned(),
        ));
    }
    if inbox.lost
        || inbox.order.waiting() > 0
        || inbox.order.handed() != issued.load(Ordering::SeqCst)
    {
        return Err(lost(&inbox));
    }
    Ok(match stop.load(Ordering::SeqCst) {
        true => Ended::Stopped,
        false => Ended::Complete,
    })
}

/// The text a panic was raised with.
pub(super) fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Instant;

    #[test]
    fn reorder_hands_items_on_in_their_order() {
        let mut r = Reorder::new();
        let pop = |r: &mut Reorder<char>| r.pop().map(|(_, c)| c);
        r.arrive((2, 0), true, 'c');
        r.arrive((1, 0), true, 'b');
        assert_eq!(pop(&mut r), None);
        assert_eq!(r.waiting(), 2);
        r.arrive((0, 0), true, 'a');
        assert_eq!(
            (pop(&mut r), pop(&mut r), pop(&mut r), pop(&mut r)),
            (Some('a'), Some('b'), Some('c'), None)
        );
        assert_eq!((r.handed(), r.waiting()), (3, 0));
        r.arrive((4, 0), true, 'e');
        assert_eq!(pop(&mut r), None);
        r.arrive((3, 0), true, 'd');
        assert_eq!((pop(&mut r), pop(&mut r)), (Some('d'), Some('e')));
    }

    /// A message's parts are handed on in their order, before the next
    /// message, however they arrive; it is handed on once its last is.
    #[test]
    fn parts_are_handed_on_in_their_order() {
        let mut r = Reorder::new();
        r.arrive((1, 0), true, 'd');
        r.arrive((0, 2), true, 'c');
        r.arrive((0, 0), false, 'a');
        assert_eq!(r.pop(), Some((false, 'a')));
        assert_eq!((r.pop(), r.handed()), (None, 0));
        r.arrive((0, 1), false, 'b');
        assert_eq!(
            (r.pop(), r.pop(), r.pop(), r.pop()),
            (
                Some((false, 'b')),
                Some((true, 'c')),
                Some((true, 'd')),
                None
            )
        );
        assert_eq!(r.handed(), 2);
    }

    /// A message sent in parts from threads of their own, its last part
    /// first: written in order, its slot held until the end.
    #[test]
    fn a_message_in_parts_is_written_in_order() {
        let stop = AtomicBool::new(false);
        let mut written = Vec::new();
        let ended = in_order(
            1,
            &stop,
            |outbox: Outbox<u32>| {
                let mut ticket = outbox.slot().unwrap();
                let parts: Vec<_> = (0..3).map(|_| ticket.next_part()).collect();
                ticket.send(3);
                for (i, p) in parts.into_iter().enumerate().rev() {
                    std::thread::spawn(move || p.send(u32::try_from(i).unwrap()))
                        .join()
                        .unwrap();
                }
                outbox.slot().unwrap().send(4);
            },
            |m| written.push(m),
        );
        assert_eq!(ended.unwrap(), Ended::Complete);
        assert_eq!(written, [0, 1, 2, 3, 4]);
    }

    /// Messages sent from other threads in reverse order are written in
    /// their numbers' order.
    #[test]
    fn out_of_order_arrival_is_written_in_order() {
        let stop = AtomicBool::new(false);
        let mut written = Vec::new();
        let ended = in_order(
            100,
            &stop,
            |outbox: Outbox<u32>| {
                let tickets: Vec<_> = (0..50).map(|_| outbox.slot().unwrap()).collect();
                let end = outbox.number();
                let senders: Vec<_> = tickets
                    .into_iter()
                    .enumerate()
                    .rev()
                    .map(|(i, t)| std::thread::spawn(move || t.send(u32::try_from(i).unwrap())))
                    .collect();
                end.send(999);
                for s in senders {
                    s.join().unwrap();
                }
            },
            |m| written.push(m),
        );
        assert_eq!(ended.unwrap(), Ended::Complete);
        let mut expected: Vec<u32> = (0..50).collect();
        expected.push(999);
        assert_eq!(written, expected);
    }

    /// A reader that panics ends the stage in an error, after the messages
    /// that did arrive were written.
    #[test]
    fn a_panicking_reader_is_an_error() {
        let stop = AtomicBool::new(false);
        let mut written = Vec::new();
        let ended = in_order(
            4,
            &stop,
            |outbox: Outbox<u32>| {
                outbox.slot().unwrap().send(1);
                panic!("reader broke");
            },
            |m| written.push(m),
        );
        assert_eq!(
            ended.unwrap_err().to_string(),
            "the reader thread panicked: reader broke"
        );
        assert_eq!(written, [1]);
    }

    /// A message numbered and never sent is not passed over in silence.
    #[test]
    fn a_lost_message_is_an_error() {
        let stop = AtomicBool::new(false);
        let mut written = Vec::new();
        let ended = in_order(
            4,
            &stop,
            |outbox: Outbox<u32>| {
                drop(outbox.slot().unwrap());
                outbox.slot().unwrap().send(2);
            },
            |m| written.push(m),
        );
        assert_eq!(
            ended.unwrap_err().to_string(),
            "the reader's message 1 of 2 never arrived"
        );
        assert!(written.is_empty());
    }

    /// A worker that panics drops its ticket unsent: the stage ends in an
    /// error once the reader is done, after writing what came before it,
    /// and the slot it held is freed, so a reader with more to send than
    /// there are slots does not wait forever.
    #[test]
    fn a_panicking_worker_is_an_error_not_a_hang() {
        let (done, ended) = mpsc::channel();
        std::thread::spawn(move || {
            let stop = AtomicBool::new(false);
            let mut written = Vec::new();
            let ended = in_order(
                2,
                &stop,
                |outbox: Outbox<u32>| {
                    for i in 0..20 {
                        let ticket = outbox.slot().unwrap();
                        if i == 3 {
                            let worker = std::thread::spawn(move || {
                                let _held = ticket;
                                panic!("worker broke");
                            });
                            assert!(worker.join().is_err());
                        } else {
                            ticket.send(i);
                        }
                    }
                },
                |m| written.push(m),
            );
            let _ = done.send((ended.map_err(|e| e.to_string()), written));
        });
        let (ended, written) = ended
            .recv_timeout(Duration::from_secs(20))
            .expect("the stage hangs");
        assert_eq!(
            ended.unwrap_err(),
            "the reader's message 4 of 20 never arrived"
        );
        assert_eq!(written, [0, 1, 2]);
    }

    /// Once stopped, the stage ends as soon as every message numbered is
    /// written, though the reader is stuck.
    #[test]
    fn a_stop_does_not_wait_for_a_stuck_reader() {
        let stop = AtomicBool::new(false);
        let (release, stuck) = mpsc::channel::<()>();
        let mut written = Vec::new();
        let started = Instant::now();
        let ended = in_order(
            4,
            &stop,
            move |outbox: Outbox<u32>| {
                outbox.slot().unwrap().send(1);
                outbox.number().send(2);
                let _ = stuck.recv();
            },
            |m| {
                written.push(m);
                if m == 2 {
                    stop.store(true, Ordering::SeqCst);
                }
            },
        );
        assert_eq!(ended.unwrap(), Ended::Stopped);
        assert_eq!(written, [1, 2]);
        assert!(started.elapsed() < Duration::from_secs(5));
        drop(release);
    }

    /// An interruption does not drop the messages in flight: stopped
    /// before anything is written, the stage still writes every message
    /// numbered, in order, though they arrive late and out of order and
    /// the reader is then stuck.
    #[test]
    fn a_stop_writes_the_messages_in_flight() {
        let stop = Arc::new(AtomicBool::new(false));
        let signal = stop.clone();
        let (release, stuck) = mpsc::channel::<()>();
        let mut written = Vec::new();
        let ended = in_order(
            4,
            &stop,
            move |outbox: Outbox<u32>| {
                let tickets: Vec<_> = (0..3).map(|_| outbox.slot().unwrap()).collect();
                signal.store(true, Ordering::SeqCst);
                for (i, t) in tickets.into_iter().enumerate().rev() {
                    std::thread::sleep(Duration::from_millis(60));
                    t.send(u32::try_from(i).unwrap());
                }
                let _ = stuck.recv();
            },
            |m| written.push(m),
        );
        assert_eq!(ended.unwrap(), Ended::Stopped);
        assert_eq!(written, [0, 1, 2]);
        drop(release);
    }

    /// The reader never has more than `capacity` slot-holding messages
    /// unwritten, however much faster than the writer it is.
    #[test]
    fn back_pressure_bounds_the_messages_in_flight() {
        let stop = AtomicBool::new(false);
        let taken = Arc::new(AtomicUsize::new(0));
        let reader_taken = taken.clone();
        let mut written = 0usize;
        let mut most = 0usize;
        let ended = in_order(
            3,
            &stop,
            move |outbox: Outbox<usize>| {
                for i in 0..20 {
                    let t = outbox.slot().unwrap();
                    reader_taken.fetch_add(1, Ordering::SeqCst);
                    t.send(i);
                }
            },
            |i| {
                // The reader fills every free slot, and gets no further.
                let goal = (written + 3).min(20);
                let waited = Instant::now();
                while taken.load(Ordering::SeqCst) < goal
                    && waited.elapsed() < Duration::from_secs(2)
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
                std::thread::sleep(Duration::from_millis(2));
                // Slots taken, minus the ones written before this one.
                let in_flight = taken.load(Ordering::SeqCst) - written;
                most = most.max(in_flight);
                assert_eq!(i, written);
                written += 1;
            },
        );
        assert_eq!(ended.unwrap(), Ended::Complete);
        assert_eq!(written, 20);
        assert_eq!(most, 3);
    }
}
