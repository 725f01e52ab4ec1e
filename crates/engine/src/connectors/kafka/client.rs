//! The one client that reads every partition of a kafka table, as the one
//! consumer of a Flink source reader does: a fetch request to a broker
//! covers all the partitions it leads, rather than a client (and a
//! connection, and a request) per partition. Each partition is read from
//! a queue of its own, so that splits read on different threads take only
//! their own records.
//!
//! The partitions are assigned together on the first read, at the offsets
//! their splits start from, so that a split resumed from a checkpoint
//! starts there rather than being moved. The client may fetch a little
//! for a partition before its queue is split off, into the client's main
//! queue; each partition is therefore sought to its start once its queue
//! exists, which makes the client drop whatever it fetched before (it
//! marks fetches with the position they were made for).
//!
//! The client's statistics, every second of a live read, give each
//! partition's end offset, so a live read's lag is known without asking
//! the brokers.

use super::Settings;
use rdkafka::consumer::base_consumer::PartitionQueue;
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::error::KafkaError;
use rdkafka::statistics::Statistics;
use rdkafka::{ClientContext, Offset, TopicPartitionList};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tidemark_common::{Error, Result};

/// The client of a table's partitions.
pub(super) type TableConsumer = BaseConsumer<PartitionEnds>;

/// One partition's own queue of records.
pub(super) type Queue = Arc<PartitionQueue<PartitionEnds>>;

/// How long the assignment waits for the client to seek a partition.
const SEEK_WAIT: Duration = Duration::from_secs(10);

/// A topic and one of its partitions.
type Partition = (String, i32);

/// The end offset the client last heard of for each partition it reads
/// (the last stable one, since it reads committed records only).
#[derive(Default)]
pub(super) struct PartitionEnds(Mutex<HashMap<Partition, i64>>);

impl PartitionEnds {
    fn ends(&self) -> MutexGuard<'_, HashMap<Partition, i64>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl ClientContext for PartitionEnds {
    fn stats(&self, statistics: Statistics) {
        let mut ends = self.ends();
        for (name, topic) in &statistics.topics {
            // Partition -1 stands for the topic's unassigned messages.
            for p in topic.partitions.values() {
                if p.partition < 0 || !p.desired {
                    continue;
                }
                let end = if p.ls_offset >= 0 {
                    p.ls_offset
                } else {
                    p.hi_offset
                };
                if end >= 0 {
                    ends.insert((name.clone(), p.partition), end);
                }
            }
        }
    }
}

impl ConsumerContext for PartitionEnds {}

/// The client a table's splits share, and where each partition starts.
pub(super) struct SharedClient {
    pub(super) consumer: Arc<TableConsumer>,
    assignment: Mutex<Assignment>,
    table: String,
}

#[derive(Default)]
struct Assignment {
    /// Each partition's start offset, in the order the splits were made.
    starts: Vec<(Partition, i64)>,
    /// Once assigned: each partition's queue.
    queues: Option<HashMap<Partition, Queue>>,
}

impl SharedClient {
    /// The client for `settings`' table; a live read is given statistics
    /// every second.
    pub(super) fn new(settings: &Settings, live: bool) -> Result<Arc<Self>> {
        let every = if live { "1000" } else { "0" };
        let consumer = settings.consumer_with(PartitionEnds::default(), every)?;
        Ok(Arc::new(SharedClient {
            consumer: Arc::new(consumer),
            assignment: Mutex::new(Assignment::default()),
            table: settings.table.clone(),
        }))
    }

    fn assignment(&self) -> MutexGuard<'_, Assignment> {
        self.assignment.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Says where a partition's read starts (again, for a split resumed
    /// from a checkpoint): only before the first read.
    pub(super) fn start_at(&self, topic: &str, partition: i32, offset: i64) -> Result<()> {
        let mut assignment = self.assignment();
        if assignment.queues.is_some() {
            return Err(Error::Internal(format!(
                "table {}: partition {partition} of topic {topic} moved after the reading began",
                self.table
            )));
        }
        let key = (topic.to_string(), partition);
        match assignment.starts.iter_mut().find(|(p, _)| *p == key) {
            Some((_, start)) => *start = offset,
            None => assignment.starts.push((key, offset)),
        }
        Ok(())
    }

    /// The partition's queue; the first call assigns every partition.
    pub(super) fn queue(&self, topic: &str, partition: i32) -> std::io::Result<Queue> {
        let mut assignment = self.assignment();
        if assignment.queues.is_none() {
            let queues = self
                .assign(&assignment.starts)
                .map_err(|e| std::io::Error::other(format!("table {}: {e}", self.table)))?;
            assignment.queues = Some(queues);
        }
        let key = (topic.to_string(), partition);
        assignment
            .queues
            .as_ref()
            .and_then(|queues| queues.get(&key))
            .cloned()
            .ok_or_else(|| {
                std::io::Error::other(format!(
                    "table {}: partition {partition} of topic {topic} is not assigned",
                    self.table
                ))
            })
    }

    /// Assigns the partitions at their starts, splits off their queues and
    /// seeks each to its start, so that what was fetched before its queue
    /// existed is dropped and fetched again into it.
    fn assign(
        &self,
        starts: &[(Partition, i64)],
    ) -> std::result::Result<HashMap<Partition, Queue>, KafkaError> {
        let mut list = TopicPartitionList::new();
        for ((topic, partition), offset) in starts {
            list.add_partition_offset(topic, *partition, Offset::Offset(*offset))?;
        }
        self.consumer.assign(&list)?;
        let mut queues = HashMap::new();
        for ((topic, partition), _) in starts {
            let queue = self
                .consumer
                .split_partition_queue(topic, *partition)
                .ok_or_else(|| {
                    KafkaError::Subscription(format!(
                        "no queue for partition {partition} of topic {topic}"
                    ))
                })?;
            queues.insert((topic.clone(), *partition), Arc::new(queue));
        }
        let sought = self.consumer.seek_partitions(list, SEEK_WAIT)?;
        for element in sought.elements() {
            if let Err(e) = element.error() {
                return Err(KafkaError::Seek(format!(
                    "partition {} of topic {}: {e}",
                    element.partition(),
                    element.topic()
                )));
            }
        }
        Ok(queues)
    }

    /// Serves the client's own events (statistics, errors); a record
    /// there was fetched before its partition's queue was split off and
    /// sought, so the client drops it. An error the client reports stops
    /// the read.
    pub(super) fn serve(&self) -> std::io::Result<()> {
        while let Some(event) = self.consumer.poll(Duration::ZERO) {
            if let Err(e) = event {
                // An end of partition here is an old fetch's: the sought
                // queue says it again when its read gets there.
                if !matches!(e, KafkaError::PartitionEOF(_)) {
                    return Err(std::io::Error::other(format!("table {}: {e}", self.table)));
                }
            }
        }
        Ok(())
    }

    /// The end offset last heard of for a partition of a live read.
    pub(super) fn end_of(&self, topic: &str, partition: i32) -> Option<i64> {
        self.consumer
            .context()
            .ends()
            .get(&(topic.to_string(), partition))
            .copied()
    }

    /// Stops fetching a partition whose bounded read is done.
    pub(super) fn finished(&self, topic: &str, partition: i32) {
        let mut list = TopicPartitionList::new();
        list.add_partition(topic, partition);
        // Only a saving: a partition still fetched costs memory, not rows.
        let _ = self.consumer.pause(&list);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdkafka::statistics::{Partition as Heard, Topic};

    fn heard(topic: &str, partitions: &[(i32, bool, i64, i64)]) -> Statistics {
        let partitions = partitions
            .iter()
            .map(|&(partition, desired, hi_offset, ls_offset)| {
                let p = Heard {
                    partition,
                    desired,
                    hi_offset,
                    ls_offset,
                    ..Heard::default()
                };
                (partition, p)
            })
            .collect();
        let stats = Topic {
            topic: topic.into(),
            partitions,
            ..Topic::default()
        };
        Statistics {
            topics: [(topic.to_string(), stats)].into(),
            ..Statistics::default()
        }
    }

    #[test]
    fn a_partitions_end_is_its_last_stable_offset_once_heard_of() {
        let ends = PartitionEnds::default();
        let end = |p: i32| ends.ends().get(&("bids".to_string(), p)).copied();
        assert_eq!(end(2), None, "nothing heard yet");
        // The unassigned pseudo-partition and partitions not read are
        // left alone.
        ends.stats(heard("bids", &[(-1, false, 9, 9), (0, false, 7, 7)]));
        assert_eq!((end(-1), end(0)), (None, None));
        ends.stats(heard("bids", &[(2, true, 120, 100), (3, true, 5, 5)]));
        assert_eq!(
            end(2),
            Some(100),
            "an open transaction's records are not yet readable"
        );
        assert_eq!(end(3), Some(5));
        ends.stats(heard("bids", &[(2, true, 130, -1)]));
        assert_eq!(
            end(2),
            Some(130),
            "without a stable offset, the high watermark"
        );
        ends.stats(heard("bids", &[(2, true, -1, -1)]));
        assert_eq!(end(2), Some(130), "an unknown end keeps the last one heard");
        ends.stats(heard("asks", &[(2, true, 4, 4)]));
        assert_eq!(end(2), Some(130), "partitions are told apart by topic");
    }
}
