//! A reader that reads, checks and decodes chunks on a background thread.

use std::sync::mpsc::{Receiver, sync_channel};
use std::thread::JoinHandle;

use crate::error::Result;
use crate::framer::Damage;
use crate::header::FileHeader;
use crate::reader::Reader;
use crate::record::Record;

enum Msg<R> {
    Chunk(Vec<R>),
    Failed(crate::DataError),
    Done(Vec<Damage>),
}

/// Wraps a [`Reader`]: a background thread reads, checksums and decodes the
/// next chunks (up to `depth` ahead) while the caller consumes the current
/// one. Same records, same damage reports (the damage callback runs on the
/// background thread), same errors.
pub struct Prefetch<R: Record> {
    header: FileHeader,
    rx: Receiver<Msg<R>>,
    current: std::vec::IntoIter<R>,
    damage: Vec<Damage>,
    done: bool,
    handle: Option<JoinHandle<()>>,
}

impl<R: Record> Reader<R> {
    /// Moves this reader to a background thread that stays up to `depth`
    /// chunks ahead (at least 1).
    pub fn prefetch(mut self, depth: usize) -> Prefetch<R> {
        let header = self.header().clone();
        let (tx, rx) = sync_channel(depth.max(1));
        let handle = std::thread::spawn(move || {
            loop {
                match self.next_chunk() {
                    Ok(Some(c)) => {
                        if tx.send(Msg::Chunk(c)).is_err() {
                            return; // the consumer went away
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        let _ = tx.send(Msg::Failed(e));
                        break;
                    }
                }
            }
            let _ = tx.send(Msg::Done(self.damage().to_vec()));
        });
        Prefetch {
            header,
            rx,
            current: Vec::new().into_iter(),
            damage: Vec::new(),
            done: false,
            handle: Some(handle),
        }
    }
}

impl<R: Record> Prefetch<R> {
    /// The file header.
    pub fn header(&self) -> &FileHeader {
        &self.header
    }

    /// Damaged regions; complete once the stream has ended.
    pub fn damage(&self) -> &[Damage] {
        &self.damage
    }

    /// The next decoded chunk, `None` at the end.
    pub fn next_chunk(&mut self) -> Result<Option<Vec<R>>> {
        let rest: Vec<R> = std::mem::take(&mut self.current).collect();
        if !rest.is_empty() {
            return Ok(Some(rest));
        }
        while !self.done {
            match self.rx.recv() {
                Ok(Msg::Chunk(c)) => return Ok(Some(c)),
                Ok(Msg::Failed(e)) => return Err(e),
                Ok(Msg::Done(d)) => {
                    self.damage = d;
                    self.done = true;
                }
                Err(_) => self.done = true,
            }
        }
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        Ok(None)
    }
}

impl<R: Record> Iterator for Prefetch<R> {
    type Item = Result<R>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(r) = self.current.next() {
            return Some(Ok(r));
        }
        match self.next_chunk() {
            Ok(Some(c)) => {
                self.current = c.into_iter();
                self.current.next().map(Ok)
            }
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
}
