//! A table source in a checkpoint: whether one can be taken, and each
//! split's name, position and watermark with the rows read ahead.

use super::*;

impl TableSource {
    /// Why this table cannot be checkpointed, if it cannot: only files
    /// read on one thread and Kafka partitions can be read again from a
    /// position.
    pub fn checkpoint_blocker(&self) -> Option<Error> {
        let what = self
            .splits
            .iter()
            .find_map(|s| s.split.reader.unpositioned())?;
        Some(
            Error::plan(
                format!(
                    "checkpointing covers tables read from files and Kafka topics: table {} reads {what}",
                    self.table.name
                ),
                tidemark_common::Span::default(),
            )
            .with_hint("run the query without 'execution.checkpointing.dir'"),
        )
    }

    /// Keeps what checkpoints need of the reading: a checksum of the bytes
    /// read (called before the first read).
    pub fn track_position(&mut self) {
        self.tracks_positions = true;
        for s in &mut self.splits {
            s.split.reader.track_position();
        }
    }

    /// The checkpoint that [`TableSource::save_state`] wrote is durable:
    /// each split may tell its input where it stands.
    pub fn checkpoint_taken(&mut self) -> Result<()> {
        for s in &mut self.splits {
            s.split.reader.checkpoint_taken()?;
        }
        Ok(())
    }

    /// Whether the source stands between two batches with nothing waiting
    /// (no error to report, the input not ended): a checkpoint can be taken.
    pub fn at_checkpoint_point(&self) -> bool {
        self.splits
            .iter()
            .all(|s| s.split.reader.between_batches() && s.pending_error.is_none())
            && !self.stopped
    }

    /// Writes where the source stands for a checkpoint: each split's name,
    /// position (with a checksum of the bytes before it, so that a changed
    /// file is noticed on resume) and watermark, the rows read from the
    /// splits and not yet taken, and counts.
    pub fn save_state(&self, w: &mut StateWriter) -> Result<()> {
        w.u64(self.splits.len() as u64);
        for s in &self.splits {
            let Some(position) = s.split.reader.position() else {
                return Err(self.checkpoint_blocker().unwrap_or_else(|| {
                    Error::Internal("a checkpoint between two batches of a source".into())
                }));
            };
            w.put(&s.split.name);
            w.put(&position);
            w.put(&s.watermark);
        }
        self.aligner.save_state(w)?;
        w.put(&self.done);
        w.put(&self.rows_without_rowtime);
        w.put(&self.rowtimes);
        w.put(&match self.clock {
            Clock::Fake { rows, .. } => Some(rows),
            Clock::System | Clock::Scripted(_) => None,
        });
        w.put(&match self.clock {
            Clock::Scripted(_) => Some(self.clock.now()),
            Clock::System | Clock::Fake { .. } => None,
        });
        for s in &self.splits {
            w.put(&s.quiet_since);
            w.put(&s.idle_since);
        }
        w.put(&self.went_idle);
        w.put(&self.came_back);
        Ok(())
    }

    /// Reads what [`TableSource::save_state`] wrote, and goes on reading
    /// each split from the position saved: the table must read the splits
    /// the checkpoint read, by name.
    pub fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        if let Some(blocker) = self.checkpoint_blocker() {
            return Err(blocker);
        }
        let saved = r.count()?;
        let mut positions = Vec::with_capacity(saved);
        for _ in 0..saved {
            let name: String = r.get()?;
            let position: ReadPosition = r.get()?;
            let watermark: i64 = r.get()?;
            positions.push((name, position, watermark));
        }
        // A followed folder may hold files that came after the checkpoint:
        // they join as new splits, after those the checkpoint read.
        let names = |names: Vec<&str>| names.join(", ");
        let now_names: Vec<String> = self.splits.iter().map(|s| s.split.name.clone()).collect();
        let mut current: Vec<Option<SplitState>> = std::mem::take(&mut self.splits)
            .into_iter()
            .map(Some)
            .collect();
        let mut ordered = Vec::with_capacity(current.len());
        for (name, position, watermark) in &positions {
            let found = current
                .iter_mut()
                .find(|s| s.as_ref().is_some_and(|s| s.split.name == *name))
                .and_then(Option::take);
            let Some(mut state) = found else { break };
            state.split.reader.resume(position)?;
            state.watermark = *watermark;
            ordered.push(state);
        }
        let added: Vec<SplitState> = current.into_iter().flatten().collect();
        let joins = self.discovery.as_ref().is_some_and(|d| d.joins_on_resume());
        if ordered.len() < positions.len() || (!added.is_empty() && !joins) {
            let then: Vec<&str> = positions.iter().map(|(n, ..)| n.as_str()).collect();
            return Err(Error::Input(format!(
                "table {}: the checkpoint was taken reading {}, but the table now reads {}",
                self.table.name,
                names(then),
                names(now_names.iter().map(String::as_str).collect())
            )));
        }
        self.splits = ordered;
        self.aligner = Aligner::new(0);
        let origin = self.origin.clone();
        self.aligner.load_state(r, |_| origin.clone())?;
        if self.aligner.lanes().len() != self.splits.len() {
            return Err(crate::runtime::snapshot::corrupt(
                "a source's splits and lanes differ",
            ));
        }
        // They join at the first read, or where the journal says.
        self.unjoined = added;
        self.done = r.get()?;
        self.rows_without_rowtime = r.get()?;
        self.rowtimes = r.get()?;
        let clock_rows: Option<i64> = r.get()?;
        if let (Clock::Fake { rows, .. }, Some(saved)) = (&mut self.clock, clock_rows) {
            *rows = saved;
        }
        let scripted_now: Option<i64> = r.get()?;
        if let (Clock::Scripted(_), Some(now)) = (&self.clock, scripted_now) {
            self.clock.wait(Some(now));
        }
        for s in self.splits.iter_mut().take(saved) {
            s.quiet_since = r.get()?;
            s.idle_since = r.get()?;
        }
        self.went_idle = r.get()?;
        self.came_back = r.get()?;
        Ok(())
    }
}
