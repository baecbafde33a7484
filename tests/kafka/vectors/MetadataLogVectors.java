// The vectors of KRaft's metadata log, for VectorGen (same output, same conventions):
// `metadata.*` lines are metadata records as Kafka's MetadataRecordSerde frames them in
// `__cluster_metadata` (frame version, api key, version, record), from the kafka-metadata
// jar's generated classes; `batch.*` lines are record batches (magic 2) written by Kafka's
// MemoryRecords builders: a batch of metadata records, a control batch of the kind KRaft
// writes, a record with a key and headers, a gzip batch; `request.fetch.*` and
// `response.fetch.*` are Fetch as a KRaft observer sends it and the quorum leader answers.

import java.nio.ByteBuffer;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.LeaderChangeMessage;
import org.apache.kafka.common.metadata.AbortTransactionRecord;
import org.apache.kafka.common.metadata.BeginTransactionRecord;
import org.apache.kafka.common.metadata.BrokerRegistrationChangeRecord;
import org.apache.kafka.common.metadata.EndTransactionRecord;
import org.apache.kafka.common.metadata.FenceBrokerRecord;
import org.apache.kafka.common.metadata.NoOpRecord;
import org.apache.kafka.common.metadata.PartitionChangeRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.RemoveTopicRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.metadata.UnfenceBrokerRecord;
import org.apache.kafka.common.metadata.UnregisterBrokerRecord;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchSnapshotRequestData;
import org.apache.kafka.common.message.FetchSnapshotResponseData;
import org.apache.kafka.common.record.UnalignedMemoryRecords;

class MetadataLogVectors {

    static final Uuid TOPIC_ID = new Uuid(0x0102030405060708L, 0x1112131415161718L);
    static final Uuid INCARNATION_ID = new Uuid(0x2122232425262728L, 0x3132333435363738L);
    static final Uuid DIR_A = new Uuid(0x4142434445464748L, 0x5152535455565758L);
    static final Uuid DIR_B = new Uuid(0x6162636465666768L, 0x7172737475767778L);

    /** A record as MetadataRecordSerde frames it in the log: frame version, api key, version, record. */
    static byte[] framed(ApiMessage message, int version) {
        ApiMessageAndVersion record = new ApiMessageAndVersion(message, (short) version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = MetadataRecordSerde.INSTANCE.recordSize(record, cache);
        ByteBufferAccessor out = new ByteBufferAccessor(ByteBuffer.allocate(size));
        MetadataRecordSerde.INSTANCE.write(record, cache, out);
        return out.buffer().array();
    }

    static void metadata(String name, ApiMessage message, int version) {
        System.out.println("metadata." + name + ".v" + version + " " + VectorGen.hex(framed(message, version)));
    }

    static RegisterBrokerRecord registerBroker(int v) {
        RegisterBrokerRecord record = new RegisterBrokerRecord()
            .setBrokerId(3).setIncarnationId(INCARNATION_ID).setBrokerEpoch(4242L)
            .setRack(v == 1 ? null : "rack-b").setFenced(true);
        record.endPoints().add(new RegisterBrokerRecord.BrokerEndpoint()
            .setName("PLAINTEXT").setHost("broker-3.example").setPort(49092).setSecurityProtocol((short) 0));
        record.endPoints().add(new RegisterBrokerRecord.BrokerEndpoint()
            .setName("SASL_SSL").setHost("broker-3.example").setPort(9094).setSecurityProtocol((short) 3));
        record.features().add(new RegisterBrokerRecord.BrokerFeature()
            .setName("metadata.version").setMinSupportedVersion((short) 7).setMaxSupportedVersion((short) 27));
        if (v >= 1) record.setInControlledShutdown(true);
        if (v >= 2) record.setIsMigratingZkBroker(v == 2);
        if (v >= 3) record.setLogDirs(List.of(DIR_A, DIR_B));
        return record;
    }

    static PartitionRecord partition(int v) {
        PartitionRecord record = new PartitionRecord()
            .setPartitionId(7).setTopicId(TOPIC_ID).setReplicas(List.of(1, 2, 3)).setIsr(List.of(1, 3))
            .setRemovingReplicas(List.of(2)).setAddingReplicas(List.of()).setLeader(1)
            .setLeaderEpoch(12).setPartitionEpoch(34).setLeaderRecoveryState((byte) (v == 0 ? 1 : 0));
        if (v >= 1) record.setDirectories(List.of(DIR_A, DIR_B, Uuid.ZERO_UUID));
        if (v >= 2) record.setEligibleLeaderReplicas(List.of(2)).setLastKnownElr(List.of());
        return record;
    }

    static PartitionChangeRecord partitionChange(int v) {
        PartitionChangeRecord record = new PartitionChangeRecord()
            .setPartitionId(7).setTopicId(TOPIC_ID).setIsr(List.of(1, 2, 4)).setLeader(4)
            .setReplicas(List.of(1, 2, 4, 3)).setRemovingReplicas(List.of(3)).setAddingReplicas(List.of(4))
            .setLeaderRecoveryState((byte) 0);
        if (v >= 1) record.setDirectories(List.of(DIR_A, DIR_B, DIR_A, Uuid.ZERO_UUID));
        if (v >= 2) record.setEligibleLeaderReplicas(List.of(2)).setLastKnownElr(List.of(3));
        return record;
    }

    static BrokerRegistrationChangeRecord brokerChange(int v) {
        BrokerRegistrationChangeRecord record = new BrokerRegistrationChangeRecord()
            .setBrokerId(3).setBrokerEpoch(4242L).setFenced((byte) -1);
        if (v >= 1) record.setInControlledShutdown((byte) 1);
        if (v >= 2) record.setLogDirs(List.of(DIR_B));
        return record;
    }

    static void metadataRecords() {
        for (int v = 0; v <= 3; v++) metadata("register_broker", registerBroker(v), v);
        metadata("unregister_broker", new UnregisterBrokerRecord().setBrokerId(3).setBrokerEpoch(4242L), 0);
        metadata("topic", new TopicRecord().setName("orders").setTopicId(TOPIC_ID), 0);
        for (int v = 0; v <= 2; v++) {
            metadata("partition", partition(v), v);
            metadata("partition_change", partitionChange(v), v);
            metadata("broker_registration_change", brokerChange(v), v);
        }
        // The common changes: a new leader alone (tagged leader only), nothing but the epoch.
        metadata("partition_change.leader", new PartitionChangeRecord()
            .setPartitionId(0).setTopicId(TOPIC_ID).setLeader(2), 0);
        metadata("partition_change.no_leader", new PartitionChangeRecord()
            .setPartitionId(0).setTopicId(TOPIC_ID).setLeader(-1).setIsr(List.of()), 1);
        metadata("partition_change.empty", new PartitionChangeRecord()
            .setPartitionId(0).setTopicId(TOPIC_ID), 2);
        metadata("broker_registration_change.fenced", new BrokerRegistrationChangeRecord()
            .setBrokerId(1).setBrokerEpoch(9L).setFenced((byte) 1), 2);
        metadata("fence_broker", new FenceBrokerRecord().setId(2).setEpoch(77L), 0);
        metadata("unfence_broker", new UnfenceBrokerRecord().setId(2).setEpoch(78L), 0);
        metadata("remove_topic", new RemoveTopicRecord().setTopicId(TOPIC_ID), 0);
        metadata("begin_transaction", new BeginTransactionRecord().setName("create 3 topics"), 0);
        metadata("begin_transaction.unnamed", new BeginTransactionRecord(), 0);
        metadata("end_transaction", new EndTransactionRecord(), 0);
        metadata("abort_transaction", new AbortTransactionRecord().setReason("controller failover"), 0);
        metadata("no_op", new NoOpRecord(), 0);
    }

    static void batch(String name, MemoryRecords records) {
        ByteBuffer buffer = records.buffer().duplicate();
        byte[] out = new byte[buffer.remaining()];
        buffer.get(out);
        System.out.println("batch." + name + " " + VectorGen.hex(out));
    }

    /** Four metadata records from offset 100 as the raft client writes them. */
    static byte[] metadataBatch() {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(4096), RecordBatch.MAGIC_VALUE_V2,
            Compression.NONE, TimestampType.CREATE_TIME, 100L, RecordBatch.NO_TIMESTAMP,
            RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false, false, 5);
        builder.appendWithOffset(100L, 1733356800000L, null, framed(new TopicRecord().setName("orders").setTopicId(TOPIC_ID), 0));
        builder.appendWithOffset(101L, 1733356800000L, null, framed(partition(1), 1));
        builder.appendWithOffset(102L, 1733356800000L, null, framed(new NoOpRecord(), 0));
        builder.appendWithOffset(103L, 1733356800000L, null, framed(partitionChange(2), 2));
        ByteBuffer buffer = builder.build().buffer();
        byte[] out = new byte[buffer.remaining()];
        buffer.get(out);
        return out;
    }

    static void recordBatches() {
        // As the raft client writes them: no key, the framed record as value, one append
        // time for the batch, the quorum's epoch as the partition leader epoch.
        batch("metadata", MemoryRecords.readableRecords(ByteBuffer.wrap(metadataBatch())));

        LeaderChangeMessage leaderChange = new LeaderChangeMessage().setLeaderId(1)
            .setVoters(List.of(new LeaderChangeMessage.Voter().setVoterId(1)))
            .setGrantingVoters(List.of(new LeaderChangeMessage.Voter().setVoterId(1)));
        batch("control.leader_change", MemoryRecords.withLeaderChangeMessage(
            104L, 1733356801000L, 6, ByteBuffer.allocate(256), leaderChange));

        MemoryRecordsBuilder general = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2,
            Compression.NONE, TimestampType.CREATE_TIME, 7L, RecordBatch.NO_TIMESTAMP,
            1000L, (short) 2, 10, false, false, 3);
        general.appendWithOffset(7L, 1733356800000L, VectorGen.utf8("key-1"), VectorGen.utf8("value-1"),
            new Header[] {new RecordHeader("trace", VectorGen.utf8("abc")), new RecordHeader("empty", (byte[]) null)});
        general.appendWithOffset(9L, 1733356799000L, (byte[]) null, (byte[]) null);
        batch("general", general.build());

        MemoryRecordsBuilder gzip = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2,
            Compression.gzip().build(), TimestampType.CREATE_TIME, 200L, RecordBatch.NO_TIMESTAMP,
            RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false, false, 5);
        gzip.appendWithOffset(200L, 1733356800000L, null, framed(new RemoveTopicRecord().setTopicId(TOPIC_ID), 0));
        batch("gzip", gzip.build());
    }

    // Fetch as a KRaft observer sends it for __cluster_metadata, and the quorum leader's answer.
    static final Uuid METADATA_TOPIC_ID = new Uuid(0L, 1L);

    static FetchRequestData observerFetch(int v) {
        FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic()
            .setTopic("__cluster_metadata").setTopicId(METADATA_TOPIC_ID)
            .setPartitions(List.of(new FetchRequestData.FetchPartition()
                .setPartition(0).setCurrentLeaderEpoch(4).setFetchOffset(100L).setLastFetchedEpoch(3)
                .setLogStartOffset(-1L).setPartitionMaxBytes(1048576)));
        return new FetchRequestData().setClusterId("test-cluster-id").setReplicaId(-1)
            .setMaxWaitMs(500).setMinBytes(1).setMaxBytes(8388608).setIsolationLevel((byte) 0)
            .setSessionId(0).setSessionEpoch(-1).setTopics(List.of(topic)).setRackId("");
    }

    static void metadataLogFetch() {
        for (int v = 13; v <= 18; v++) VectorGen.request("fetch", ApiKeys.FETCH, v, observerFetch(v));
        // A voter's fetch: ReplicaState, its directory, the high watermark it knows.
        FetchRequestData voter = observerFetch(18).setReplicaState(
            new FetchRequestData.ReplicaState().setReplicaId(3).setReplicaEpoch(7L));
        voter.topics().get(0).partitions().get(0)
            .setReplicaDirectoryId(DIR_A).setHighWatermark(99L);
        VectorGen.request("fetch.voter", ApiKeys.FETCH, 18, voter);

        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(metadataBatch()));
        for (int v = 13; v <= 18; v++) {
            FetchResponseData data = new FetchResponseData().setThrottleTimeMs(0)
                .setErrorCode((short) 0).setSessionId(0)
                .setResponses(List.of(new FetchResponseData.FetchableTopicResponse()
                    .setTopic("__cluster_metadata").setTopicId(METADATA_TOPIC_ID)
                    .setPartitions(List.of(new FetchResponseData.PartitionData()
                        .setPartitionIndex(0).setErrorCode((short) 0).setHighWatermark(104L)
                        .setLastStableOffset(-1L).setLogStartOffset(0L)
                        .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(100).setLeaderEpoch(5))
                        .setAbortedTransactions(null).setPreferredReadReplica(-1)
                        .setRecords(records)))));
            if (v >= 16) {
                data.nodeEndpoints().add(new FetchResponseData.NodeEndpoint()
                    .setNodeId(100).setHost("127.0.0.1").setPort(9093).setRack(null));
            }
            VectorGen.response("fetch", ApiKeys.FETCH, v, data);
        }
        // Fenced: the leader's epoch moved on; the position diverged; a snapshot to fetch.
        VectorGen.response("fetch.fenced", ApiKeys.FETCH, 17, new FetchResponseData()
            .setResponses(List.of(new FetchResponseData.FetchableTopicResponse()
                .setTopicId(METADATA_TOPIC_ID)
                .setPartitions(List.of(new FetchResponseData.PartitionData()
                    .setPartitionIndex(0).setErrorCode(Errors.FENCED_LEADER_EPOCH.code())
                    .setHighWatermark(-1L).setLastStableOffset(-1L).setLogStartOffset(-1L)
                    .setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(4).setEndOffset(90L))
                    .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(100).setLeaderEpoch(6))
                    .setSnapshotId(new FetchResponseData.SnapshotId().setEndOffset(80L).setEpoch(3))
                    .setAbortedTransactions(List.of(new FetchResponseData.AbortedTransaction()
                        .setProducerId(1000L).setFirstOffset(50L)))
                    .setPreferredReadReplica(-1).setRecords(null))))));
    }

    /** FetchSnapshot as an observer asks for a chunk of the snapshot a Fetch answer named. */
    static FetchSnapshotRequestData observerFetchSnapshot() {
        return new FetchSnapshotRequestData().setClusterId("test-cluster-id").setReplicaId(-1)
            .setMaxBytes(1048576)
            .setTopics(List.of(new FetchSnapshotRequestData.TopicSnapshot()
                .setName("__cluster_metadata")
                .setPartitions(List.of(new FetchSnapshotRequestData.PartitionSnapshot()
                    .setPartition(0).setCurrentLeaderEpoch(5)
                    .setSnapshotId(new FetchSnapshotRequestData.SnapshotId().setEndOffset(80L).setEpoch(3))
                    .setPosition(4096L)))));
    }

    static void metadataLogFetchSnapshot() {
        for (int v = 0; v <= 1; v++) {
            VectorGen.request("fetch_snapshot", ApiKeys.FETCH_SNAPSHOT, v, observerFetchSnapshot());
        }
        FetchSnapshotRequestData voter = observerFetchSnapshot().setReplicaId(3).setClusterId(null);
        voter.topics().get(0).partitions().get(0).setReplicaDirectoryId(DIR_A);
        VectorGen.request("fetch_snapshot.voter", ApiKeys.FETCH_SNAPSHOT, 1, voter);

        // A chunk cut inside the batch: bytes 10..60 of the metadata batch, at position 10.
        byte[] batch = metadataBatch();
        byte[] chunk = java.util.Arrays.copyOfRange(batch, 10, 60);
        for (int v = 0; v <= 1; v++) {
            FetchSnapshotResponseData data = new FetchSnapshotResponseData().setThrottleTimeMs(0)
                .setErrorCode((short) 0)
                .setTopics(List.of(new FetchSnapshotResponseData.TopicSnapshot()
                    .setName("__cluster_metadata")
                    .setPartitions(List.of(new FetchSnapshotResponseData.PartitionSnapshot()
                        .setIndex(0).setErrorCode((short) 0)
                        .setSnapshotId(new FetchSnapshotResponseData.SnapshotId().setEndOffset(80L).setEpoch(3))
                        .setCurrentLeader(new FetchSnapshotResponseData.LeaderIdAndEpoch().setLeaderId(100).setLeaderEpoch(5))
                        .setSize(batch.length).setPosition(10L)
                        .setUnalignedRecords(new UnalignedMemoryRecords(ByteBuffer.wrap(chunk)))))));
            if (v >= 1) {
                data.nodeEndpoints().add(new FetchSnapshotResponseData.NodeEndpoint()
                    .setNodeId(100).setHost("127.0.0.1").setPort(9093));
            }
            VectorGen.response("fetch_snapshot", ApiKeys.FETCH_SNAPSHOT, v, data);
        }
        // The snapshot is gone (the leader took a newer one): no bytes, the leader named.
        VectorGen.response("fetch_snapshot.not_found", ApiKeys.FETCH_SNAPSHOT, 1, new FetchSnapshotResponseData()
            .setTopics(List.of(new FetchSnapshotResponseData.TopicSnapshot()
                .setName("__cluster_metadata")
                .setPartitions(List.of(new FetchSnapshotResponseData.PartitionSnapshot()
                    .setIndex(0).setErrorCode(Errors.SNAPSHOT_NOT_FOUND.code())
                    .setSnapshotId(new FetchSnapshotResponseData.SnapshotId().setEndOffset(80L).setEpoch(3))
                    .setCurrentLeader(new FetchSnapshotResponseData.LeaderIdAndEpoch().setLeaderId(101).setLeaderEpoch(6))
                    .setSize(-1L).setPosition(-1L)
                    .setUnalignedRecords(new UnalignedMemoryRecords(ByteBuffer.allocate(0))))))));
    }
}
