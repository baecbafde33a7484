// Writes the byte vectors that tests/kafka/unit/ compares Ballast's encoders and decoders
// against, produced by Kafka's own message classes from the kafka-clients jar. Run by
// tests/kafka/vectors/regenerate (which compiles it against the jars tools/kafka-cluster
// fetched); the output is kafka_vectors.txt next to this file.
//
// Each vector is one line: `NAME HEX`, where the bytes are a whole frame after its 4-byte
// size prefix: header then body. Requests use correlation id 7 and client id "ballast";
// responses correlation id 7. The values are the fixed recipes the C++ test builds (or
// expects) too: change one side, change the other.
//
// `metadata.*`, `batch.*` and the Fetch and FetchSnapshot lines come from MetadataLogVectors.java.
//
// `error CODE NAME RETRIABLE` lines list Kafka's error codes for protocol_errors.cc.
//
// `scram.*` lines are SCRAM conversations (RFC 5802) that Kafka's own ScramFormatter computes
// from fixed names, passwords, nonces and salts: each message's bytes, as the SaslAuthenticate
// tokens carry them.

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramMessages;
import org.apache.kafka.common.utils.AppInfoParser;

public class VectorGen {
    static final int CORRELATION_ID = 7;

    static byte[] bytes(Message message, short version) {
        ByteBuffer buffer = MessageUtil.toByteBufferAccessor(message, version).buffer();
        byte[] out = new byte[buffer.remaining()];
        buffer.get(out);
        return out;
    }

    static String hex(byte[]... parts) {
        StringBuilder out = new StringBuilder();
        for (byte[] part : parts) {
            for (byte b : part) out.append(String.format("%02x", b & 0xff));
        }
        return out.toString();
    }

    static void request(String name, ApiKeys api, int version, Message body) {
        short v = (short) version;
        RequestHeaderData header = new RequestHeaderData()
            .setRequestApiKey(api.id)
            .setRequestApiVersion(v)
            .setCorrelationId(CORRELATION_ID)
            .setClientId("ballast");
        System.out.println("request." + name + ".v" + version + " "
            + hex(bytes(header, api.requestHeaderVersion(v)), bytes(body, v)));
    }

    static void response(String name, ApiKeys api, int version, Message body) {
        short v = (short) version;
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(CORRELATION_ID);
        System.out.println("response." + name + ".v" + version + " "
            + hex(bytes(header, api.responseHeaderVersion(v)), bytes(body, v)));
    }

    // ------------------------------------------------------------------ requests

    static void requests() {
        for (int v = 0; v <= 4; v++) {
            request("api_versions", ApiKeys.API_VERSIONS, v, new ApiVersionsRequestData()
                .setClientSoftwareName("ballast").setClientSoftwareVersion("0.1.0"));
        }

        request("describe_cluster", ApiKeys.DESCRIBE_CLUSTER, 0,
            new DescribeClusterRequestData().setIncludeClusterAuthorizedOperations(true));
        request("describe_cluster", ApiKeys.DESCRIBE_CLUSTER, 1,
            new DescribeClusterRequestData().setEndpointType((byte) 2));
        request("describe_cluster", ApiKeys.DESCRIBE_CLUSTER, 2,
            new DescribeClusterRequestData().setIncludeFencedBrokers(true));

        for (int v = 0; v <= 1; v++) {
            request("alter_partition_reassignments", ApiKeys.ALTER_PARTITION_REASSIGNMENTS, v,
                new AlterPartitionReassignmentsRequestData()
                    .setTimeoutMs(30000)
                    .setAllowReplicationFactorChange(v == 0)  // false is v1+ only
                    .setTopics(List.of(
                        new AlterPartitionReassignmentsRequestData.ReassignableTopic()
                            .setName("orders")
                            .setPartitions(List.of(
                                new AlterPartitionReassignmentsRequestData.ReassignablePartition()
                                    .setPartitionIndex(0).setReplicas(List.of(2, 3, 1)),
                                new AlterPartitionReassignmentsRequestData.ReassignablePartition()
                                    .setPartitionIndex(1).setReplicas(null))),
                        new AlterPartitionReassignmentsRequestData.ReassignableTopic()
                            .setName("payments")
                            .setPartitions(List.of(
                                new AlterPartitionReassignmentsRequestData.ReassignablePartition()
                                    .setPartitionIndex(4).setReplicas(List.of(1)))))));
        }

        request("list_partition_reassignments.all", ApiKeys.LIST_PARTITION_REASSIGNMENTS, 0,
            new ListPartitionReassignmentsRequestData().setTimeoutMs(10000).setTopics(null));
        request("list_partition_reassignments.some", ApiKeys.LIST_PARTITION_REASSIGNMENTS, 0,
            new ListPartitionReassignmentsRequestData().setTimeoutMs(10000).setTopics(List.of(
                new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics()
                    .setName("orders").setPartitionIndexes(List.of(0, 1)))));

        for (int v = 0; v <= 2; v++) {
            ElectLeadersRequestData.TopicPartitionsCollection topics =
                new ElectLeadersRequestData.TopicPartitionsCollection();
            topics.add(new ElectLeadersRequestData.TopicPartitions()
                .setTopic("orders").setPartitions(List.of(0, 2)));
            request("elect_leaders", ApiKeys.ELECT_LEADERS, v, new ElectLeadersRequestData()
                .setElectionType((byte) 0).setTopicPartitions(topics).setTimeoutMs(15000));
        }
        request("elect_leaders.all_unclean", ApiKeys.ELECT_LEADERS, 2, new ElectLeadersRequestData()
            .setElectionType((byte) 1).setTopicPartitions(null).setTimeoutMs(15000));

        for (int v = 1; v <= 4; v++) {
            DescribeLogDirsRequestData.DescribableLogDirTopicCollection topics =
                new DescribeLogDirsRequestData.DescribableLogDirTopicCollection();
            topics.add(new DescribeLogDirsRequestData.DescribableLogDirTopic()
                .setTopic("orders").setPartitions(List.of(0, 1)));
            request("describe_log_dirs", ApiKeys.DESCRIBE_LOG_DIRS, v,
                new DescribeLogDirsRequestData().setTopics(topics));
        }
        request("describe_log_dirs.all", ApiKeys.DESCRIBE_LOG_DIRS, 2,
            new DescribeLogDirsRequestData().setTopics(null));

        for (int v = 0; v <= 1; v++) {
            request("sasl_handshake", ApiKeys.SASL_HANDSHAKE, v,
                new SaslHandshakeRequestData().setMechanism("SCRAM-SHA-512"));
        }
        for (int v = 0; v <= 2; v++) {
            request("sasl_authenticate", ApiKeys.SASL_AUTHENTICATE, v, new SaslAuthenticateRequestData()
                .setAuthBytes(utf8("n,,n=ballast,r=fyko+d2lbbFgONRv9qkxdawL")));
        }
    }

    // ------------------------------------------------------------------ responses

    static void responses() {
        for (int v = 0; v <= 4; v++) {
            ApiVersionsResponseData.ApiVersionCollection keys =
                new ApiVersionsResponseData.ApiVersionCollection();
            keys.add(new ApiVersionsResponseData.ApiVersion()
                .setApiKey((short) 18).setMinVersion((short) 0).setMaxVersion((short) 4));
            keys.add(new ApiVersionsResponseData.ApiVersion()
                .setApiKey((short) 60).setMinVersion((short) 0).setMaxVersion((short) 2));
            ApiVersionsResponseData data = new ApiVersionsResponseData()
                .setErrorCode((short) 0).setApiKeys(keys).setThrottleTimeMs(5);
            if (v >= 3) {
                // Tagged fields Ballast skips: features and the finalized epoch.
                ApiVersionsResponseData.SupportedFeatureKeyCollection features =
                    new ApiVersionsResponseData.SupportedFeatureKeyCollection();
                features.add(new ApiVersionsResponseData.SupportedFeatureKey()
                    .setName("metadata.version").setMinVersion((short) 1).setMaxVersion((short) 27));
                data.setSupportedFeatures(features).setFinalizedFeaturesEpoch(42);
            }
            response("api_versions", ApiKeys.API_VERSIONS, v, data);
        }
        // What a broker that does not know the requested version answers: v0, its own range.
        ApiVersionsResponseData.ApiVersionCollection own =
            new ApiVersionsResponseData.ApiVersionCollection();
        own.add(new ApiVersionsResponseData.ApiVersion()
            .setApiKey((short) 18).setMinVersion((short) 0).setMaxVersion((short) 2));
        response("api_versions.unsupported", ApiKeys.API_VERSIONS, 0, new ApiVersionsResponseData()
            .setErrorCode(Errors.UNSUPPORTED_VERSION.code()).setApiKeys(own));
        // What a SASL listener answers before authentication: the SASL APIs listed too.
        ApiVersionsResponseData.ApiVersionCollection sasl =
            new ApiVersionsResponseData.ApiVersionCollection();
        sasl.add(new ApiVersionsResponseData.ApiVersion()
            .setApiKey((short) 17).setMinVersion((short) 0).setMaxVersion((short) 1));
        sasl.add(new ApiVersionsResponseData.ApiVersion()
            .setApiKey((short) 18).setMinVersion((short) 0).setMaxVersion((short) 4));
        sasl.add(new ApiVersionsResponseData.ApiVersion()
            .setApiKey((short) 36).setMinVersion((short) 0).setMaxVersion((short) 2));
        sasl.add(new ApiVersionsResponseData.ApiVersion()
            .setApiKey((short) 60).setMinVersion((short) 0).setMaxVersion((short) 2));
        response("api_versions.sasl", ApiKeys.API_VERSIONS, 4, new ApiVersionsResponseData()
            .setErrorCode((short) 0).setApiKeys(sasl).setThrottleTimeMs(0));

        for (int v = 0; v <= 2; v++) {
            DescribeClusterResponseData.DescribeClusterBrokerCollection brokers =
                new DescribeClusterResponseData.DescribeClusterBrokerCollection();
            DescribeClusterResponseData.DescribeClusterBroker first =
                new DescribeClusterResponseData.DescribeClusterBroker()
                    .setBrokerId(1).setHost("127.0.0.1").setPort(9092).setRack("rack-1");
            first.unknownTaggedFields().add(new RawTaggedField(7, new byte[] {1, 2, 3}));
            brokers.add(first);
            brokers.add(new DescribeClusterResponseData.DescribeClusterBroker()
                .setBrokerId(2).setHost("broker-2.example").setPort(9093).setRack(null)
                .setIsFenced(v >= 2));
            DescribeClusterResponseData data = new DescribeClusterResponseData()
                .setThrottleTimeMs(0).setErrorCode((short) 0).setErrorMessage(null)
                .setClusterId("cluster-abc").setControllerId(2).setBrokers(brokers)
                .setClusterAuthorizedOperations(Integer.MIN_VALUE);
            response("describe_cluster", ApiKeys.DESCRIBE_CLUSTER, v, data);
        }
        response("describe_cluster.error", ApiKeys.DESCRIBE_CLUSTER, 2, new DescribeClusterResponseData()
            .setThrottleTimeMs(12).setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
            .setErrorMessage("denied").setEndpointType((byte) 2).setClusterId("")
            .setControllerId(-1).setClusterAuthorizedOperations(0));

        for (int v = 0; v <= 1; v++) {
            response("alter_partition_reassignments", ApiKeys.ALTER_PARTITION_REASSIGNMENTS, v,
                new AlterPartitionReassignmentsResponseData()
                    .setThrottleTimeMs(0)
                    .setAllowReplicationFactorChange(v == 0)
                    .setErrorCode((short) 0).setErrorMessage(null)
                    .setResponses(List.of(
                        new AlterPartitionReassignmentsResponseData.ReassignableTopicResponse()
                            .setName("orders")
                            .setPartitions(List.of(
                                new AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse()
                                    .setPartitionIndex(0).setErrorCode((short) 0).setErrorMessage(null),
                                new AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse()
                                    .setPartitionIndex(1)
                                    .setErrorCode(Errors.NO_REASSIGNMENT_IN_PROGRESS.code())
                                    .setErrorMessage("No reassignment in progress for orders-1"))))));
        }

        ListPartitionReassignmentsResponseData listed = new ListPartitionReassignmentsResponseData()
            .setThrottleTimeMs(3).setErrorCode((short) 0).setErrorMessage(null)
            .setTopics(List.of(new ListPartitionReassignmentsResponseData.OngoingTopicReassignment()
                .setName("orders")
                .setPartitions(List.of(
                    new ListPartitionReassignmentsResponseData.OngoingPartitionReassignment()
                        .setPartitionIndex(0).setReplicas(List.of(2, 3, 1))
                        .setAddingReplicas(List.of(3)).setRemovingReplicas(List.of(1))))));
        listed.unknownTaggedFields().add(new RawTaggedField(0, new byte[] {(byte) 0xff}));
        listed.unknownTaggedFields().add(new RawTaggedField(300, new byte[0]));
        response("list_partition_reassignments", ApiKeys.LIST_PARTITION_REASSIGNMENTS, 0, listed);

        for (int v = 0; v <= 2; v++) {
            response("elect_leaders", ApiKeys.ELECT_LEADERS, v, new ElectLeadersResponseData()
                .setThrottleTimeMs(0).setErrorCode((short) 0)
                .setReplicaElectionResults(List.of(new ElectLeadersResponseData.ReplicaElectionResult()
                    .setTopic("orders")
                    .setPartitionResult(List.of(
                        new ElectLeadersResponseData.PartitionResult()
                            .setPartitionId(0).setErrorCode((short) 0).setErrorMessage(null),
                        new ElectLeadersResponseData.PartitionResult()
                            .setPartitionId(2).setErrorCode(Errors.ELECTION_NOT_NEEDED.code())
                            .setErrorMessage("Leader election not needed for topic partition."))))));
        }

        for (int v = 1; v <= 4; v++) {
            List<DescribeLogDirsResponseData.DescribeLogDirsResult> results = new ArrayList<>();
            results.add(new DescribeLogDirsResponseData.DescribeLogDirsResult()
                .setErrorCode((short) 0).setLogDir("/data/a")
                .setTopics(List.of(new DescribeLogDirsResponseData.DescribeLogDirsTopic()
                    .setName("orders")
                    .setPartitions(List.of(
                        new DescribeLogDirsResponseData.DescribeLogDirsPartition()
                            .setPartitionIndex(0).setPartitionSize(1048576L).setOffsetLag(0)
                            .setIsFutureKey(false),
                        new DescribeLogDirsResponseData.DescribeLogDirsPartition()
                            .setPartitionIndex(1).setPartitionSize(5000000000L).setOffsetLag(3)
                            .setIsFutureKey(true)))))
                .setTotalBytes(1000000000000L).setUsableBytes(500000000000L));
            results.add(new DescribeLogDirsResponseData.DescribeLogDirsResult()
                .setErrorCode(Errors.KAFKA_STORAGE_ERROR.code()).setLogDir("/data/b")
                .setTopics(List.of()));
            response("describe_log_dirs", ApiKeys.DESCRIBE_LOG_DIRS, v,
                new DescribeLogDirsResponseData().setThrottleTimeMs(0).setErrorCode((short) 0)
                    .setResults(results));
        }
    }

    // ------------------------------------------------------------------ Metadata and ListOffsets

    static final Uuid ORDERS_ID = new Uuid(0x0102030405060708L, 0x1112131415161718L);

    static void metadataAndOffsets() {
        for (int v = 0; v <= 13; v++) {
            MetadataRequestData data = new MetadataRequestData().setTopics(List.of(
                new MetadataRequestData.MetadataRequestTopic().setName("orders"),
                new MetadataRequestData.MetadataRequestTopic().setName("payments")));
            if (v >= 4) data.setAllowAutoTopicCreation(false);
            if (v >= 8 && v <= 10) data.setIncludeClusterAuthorizedOperations(true);
            if (v >= 8) data.setIncludeTopicAuthorizedOperations(true);
            request("metadata", ApiKeys.METADATA, v, data);
        }
        // Every topic: an empty list in v0, null from v1.
        request("metadata.all", ApiKeys.METADATA, 0, new MetadataRequestData().setTopics(List.of()));
        request("metadata.all", ApiKeys.METADATA, 1, new MetadataRequestData().setTopics(null));
        request("metadata.all", ApiKeys.METADATA, 12,
            new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false));

        for (int v = 0; v <= 13; v++) {
            MetadataResponseData.MetadataResponseBrokerCollection brokers =
                new MetadataResponseData.MetadataResponseBrokerCollection();
            brokers.add(new MetadataResponseData.MetadataResponseBroker()
                .setNodeId(1).setHost("127.0.0.1").setPort(9092).setRack(v >= 1 ? "rack-1" : null));
            brokers.add(new MetadataResponseData.MetadataResponseBroker()
                .setNodeId(2).setHost("broker-2.example").setPort(9093).setRack(null));
            MetadataResponseData.MetadataResponsePartition led = new MetadataResponseData.MetadataResponsePartition()
                .setErrorCode((short) 0).setPartitionIndex(0).setLeaderId(1)
                .setLeaderEpoch(v >= 7 ? 5 : -1)
                .setReplicaNodes(List.of(1, 2)).setIsrNodes(List.of(1, 2)).setOfflineReplicas(List.of());
            if (v >= 9) led.unknownTaggedFields().add(new RawTaggedField(3, new byte[] {4, 5}));
            MetadataResponseData.MetadataResponseTopicCollection topics =
                new MetadataResponseData.MetadataResponseTopicCollection();
            topics.add(new MetadataResponseData.MetadataResponseTopic()
                .setErrorCode((short) 0).setName("orders").setTopicId(v >= 10 ? ORDERS_ID : Uuid.ZERO_UUID)
                .setIsInternal(false)
                .setPartitions(List.of(led, new MetadataResponseData.MetadataResponsePartition()
                    .setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()).setPartitionIndex(1).setLeaderId(-1)
                    .setLeaderEpoch(v >= 7 ? 3 : -1)
                    .setReplicaNodes(List.of(2, 3)).setIsrNodes(List.of())
                    .setOfflineReplicas(v >= 5 ? List.of(3) : List.of())))
                .setTopicAuthorizedOperations(v >= 8 ? 0x5f8 : Integer.MIN_VALUE));
            topics.add(new MetadataResponseData.MetadataResponseTopic()
                .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setName("gone").setPartitions(List.of()));
            topics.add(new MetadataResponseData.MetadataResponseTopic()
                .setErrorCode((short) 0).setName("__consumer_offsets").setIsInternal(v >= 1)
                .setPartitions(List.of(new MetadataResponseData.MetadataResponsePartition()
                    .setPartitionIndex(0).setLeaderId(2).setReplicaNodes(List.of(2)).setIsrNodes(List.of(2)))));
            MetadataResponseData data = new MetadataResponseData()
                .setThrottleTimeMs(v >= 3 ? 4 : 0).setBrokers(brokers)
                .setClusterId(v >= 2 ? "cluster-abc" : null).setControllerId(v >= 1 ? 2 : -1)
                .setTopics(topics);
            response("metadata", ApiKeys.METADATA, v, data);
        }
        response("metadata.error", ApiKeys.METADATA, 13, new MetadataResponseData()
            .setErrorCode(Errors.REBOOTSTRAP_REQUIRED.code()).setClusterId(null));

        for (int v = 1; v <= 10; v++) {
            ListOffsetsRequestData data = new ListOffsetsRequestData()
                .setReplicaId(-1)
                .setTopics(List.of(
                    new ListOffsetsRequestData.ListOffsetsTopic().setName("orders").setPartitions(List.of(
                        new ListOffsetsRequestData.ListOffsetsPartition()
                            .setPartitionIndex(0).setCurrentLeaderEpoch(v >= 4 ? 5 : -1).setTimestamp(-1L),
                        new ListOffsetsRequestData.ListOffsetsPartition()
                            .setPartitionIndex(1).setTimestamp(-2L))),
                    new ListOffsetsRequestData.ListOffsetsTopic().setName("payments").setPartitions(List.of(
                        new ListOffsetsRequestData.ListOffsetsPartition()
                            .setPartitionIndex(3).setTimestamp(1700000000000L)))));
            if (v >= 2) data.setIsolationLevel((byte) 1);
            if (v >= 10) data.setTimeoutMs(3000);
            request("list_offsets", ApiKeys.LIST_OFFSETS, v, data);

            ListOffsetsResponseData.ListOffsetsPartitionResponse end =
                new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                    .setPartitionIndex(0).setErrorCode((short) 0).setTimestamp(-1L).setOffset(1234L)
                    .setLeaderEpoch(v >= 4 ? 5 : -1);
            if (v >= 6) end.unknownTaggedFields().add(new RawTaggedField(2, new byte[] {7}));
            response("list_offsets", ApiKeys.LIST_OFFSETS, v, new ListOffsetsResponseData()
                .setThrottleTimeMs(v >= 2 ? 6 : 0)
                .setTopics(List.of(new ListOffsetsResponseData.ListOffsetsTopicResponse()
                    .setName("orders").setPartitions(List.of(end,
                        new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                            .setPartitionIndex(1).setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code())
                            .setTimestamp(-1L).setOffset(-1L))))));
        }
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static void saslResponses() {
        for (int v = 0; v <= 1; v++) {
            response("sasl_handshake", ApiKeys.SASL_HANDSHAKE, v, new SaslHandshakeResponseData()
                .setErrorCode((short) 0)
                .setMechanisms(List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")));
        }
        response("sasl_handshake.unsupported", ApiKeys.SASL_HANDSHAKE, 1, new SaslHandshakeResponseData()
            .setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code())
            .setMechanisms(List.of("PLAIN", "SCRAM-SHA-256")));
        for (int v = 0; v <= 2; v++) {
            SaslAuthenticateResponseData data = new SaslAuthenticateResponseData()
                .setErrorCode((short) 0).setErrorMessage(null)
                .setAuthBytes(utf8("r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096"))
                .setSessionLifetimeMs(3600000L);
            // A tagged field Ballast skips.
            if (v >= 2) data.unknownTaggedFields().add(new RawTaggedField(5, new byte[] {9}));
            response("sasl_authenticate", ApiKeys.SASL_AUTHENTICATE, v, data);
            response("sasl_authenticate.failed", ApiKeys.SASL_AUTHENTICATE, v, new SaslAuthenticateResponseData()
                .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                .setErrorMessage("Authentication failed during authentication due to invalid credentials"
                    + " with SASL mechanism SCRAM-SHA-512")
                .setAuthBytes(new byte[0]).setSessionLifetimeMs(0));
        }
    }

    /** One SCRAM conversation, every message from Kafka's ScramFormatter and ScramMessages. */
    static void scram(String name, ScramMechanism mechanism, String user, String password,
                      String clientNonce, String serverNonce, byte[] salt, int iterations) throws Exception {
        ScramFormatter formatter = new ScramFormatter(mechanism);
        ScramMessages.ClientFirstMessage clientFirst =
            new ScramMessages.ClientFirstMessage(ScramFormatter.saslName(user), clientNonce, Map.of());
        ScramMessages.ServerFirstMessage serverFirst =
            new ScramMessages.ServerFirstMessage(clientNonce, serverNonce, salt, iterations);
        ScramMessages.ClientFinalMessage clientFinal = new ScramMessages.ClientFinalMessage(
            utf8(clientFirst.gs2Header()), serverFirst.nonce());
        byte[] salted = formatter.saltedPassword(password, salt, iterations);
        clientFinal.proof(formatter.clientProof(salted, clientFirst, serverFirst, clientFinal));
        byte[] signature = formatter.serverSignature(formatter.serverKey(salted), clientFirst, serverFirst, clientFinal);
        ScramMessages.ServerFinalMessage serverFinal = new ScramMessages.ServerFinalMessage(null, signature);
        System.out.println("scram." + name + ".client_first " + hex(clientFirst.toBytes()));
        System.out.println("scram." + name + ".server_first " + hex(serverFirst.toBytes()));
        System.out.println("scram." + name + ".client_final " + hex(clientFinal.toBytes()));
        System.out.println("scram." + name + ".server_final " + hex(serverFinal.toBytes()));
    }

    static void scramConversations() throws Exception {
        // RFC 7677's example, to show Kafka's formatter and the RFC agree.
        scram("rfc7677", ScramMechanism.SCRAM_SHA_256, "user", "pencil", "rOprNGfwEbeRWgbNEkqO",
            "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0", Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
        // SHA-512, with a name that needs escaping (',' and '=').
        scram("sha512", ScramMechanism.SCRAM_SHA_512, "ballast,ops=admin", "correct horse battery",
            "fyko+d2lbbFgONRv9qkxdawL", "3rfcNHYJY1ZVvWVs7j",
            new byte[] {0x41, 0x25, (byte) 0xc2, 0x47, (byte) 0xe4, 0x3a, (byte) 0xb1, (byte) 0xe9,
                        0x3c, 0x6d, (byte) 0xff, 0x76, 0x11, 0x22, 0x33, 0x44}, 4096);
    }

    // DescribeTopicPartitions (KIP-966), version 0 (the only one Kafka 4.1 defines): a first
    // page of every topic, a page from a cursor, and a response with and without a next cursor.
    static void describeTopicPartitions() {
        request("describe_topic_partitions.all", ApiKeys.DESCRIBE_TOPIC_PARTITIONS, 0,
            new DescribeTopicPartitionsRequestData().setResponsePartitionLimit(500));
        DescribeTopicPartitionsRequestData fromCursor = new DescribeTopicPartitionsRequestData()
            .setResponsePartitionLimit(2000)
            .setCursor(new DescribeTopicPartitionsRequestData.Cursor()
                .setTopicName("orders").setPartitionIndex(7));
        fromCursor.topics().add(new DescribeTopicPartitionsRequestData.TopicRequest().setName("orders"));
        fromCursor.topics().add(new DescribeTopicPartitionsRequestData.TopicRequest().setName("payments"));
        request("describe_topic_partitions.cursor", ApiKeys.DESCRIBE_TOPIC_PARTITIONS, 0, fromCursor);

        DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopicCollection topics =
            new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopicCollection();
        topics.add(new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic()
            .setErrorCode((short) 0).setName("orders")
            .setTopicId(new Uuid(0x0102030405060708L, 0x090a0b0c0d0e0f10L)).setIsInternal(false)
            .setPartitions(List.of(
                new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition()
                    .setErrorCode((short) 0).setPartitionIndex(0).setLeaderId(1).setLeaderEpoch(4)
                    .setReplicaNodes(List.of(1, 2, 3)).setIsrNodes(List.of(1, 2))
                    .setEligibleLeaderReplicas(List.of(3)).setLastKnownElr(null)
                    .setOfflineReplicas(List.of()),
                new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition()
                    .setErrorCode((short) 5).setPartitionIndex(1).setLeaderId(-1).setLeaderEpoch(9)
                    .setReplicaNodes(List.of(2, 3)).setIsrNodes(List.of())
                    .setEligibleLeaderReplicas(null).setLastKnownElr(List.of(2))
                    .setOfflineReplicas(List.of(2, 3))))
            .setTopicAuthorizedOperations(Integer.MIN_VALUE));
        topics.add(new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic()
            .setErrorCode((short) 3).setName("gone").setTopicId(Uuid.ZERO_UUID).setIsInternal(false)
            .setPartitions(List.of()).setTopicAuthorizedOperations(Integer.MIN_VALUE));
        response("describe_topic_partitions.next", ApiKeys.DESCRIBE_TOPIC_PARTITIONS, 0,
            new DescribeTopicPartitionsResponseData().setThrottleTimeMs(3).setTopics(topics)
                .setNextCursor(new DescribeTopicPartitionsResponseData.Cursor()
                    .setTopicName("orders").setPartitionIndex(2)));
        DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopicCollection last =
            new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopicCollection();
        last.add(new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic()
            .setErrorCode((short) 0).setName("__consumer_offsets")
            .setTopicId(new Uuid(7L, 8L)).setIsInternal(true)
            .setPartitions(List.of(
                new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition()
                    .setPartitionIndex(49).setLeaderId(3).setLeaderEpoch(0)
                    .setReplicaNodes(List.of(3)).setIsrNodes(List.of(3))
                    .setOfflineReplicas(List.of())))
            .setTopicAuthorizedOperations(0));
        response("describe_topic_partitions.last", ApiKeys.DESCRIBE_TOPIC_PARTITIONS, 0,
            new DescribeTopicPartitionsResponseData().setThrottleTimeMs(0).setTopics(last)
                .setNextCursor(null));
    }

    // ------------------------------------------------------------------ consumer groups

    // ListGroups, FindCoordinator (batched, key type 0: groups) and OffsetFetch (many groups
    // at once), the sampler's estimate of consumer traffic.
    static void consumerGroups() {
        for (int v = 3; v <= 5; v++) {
            ListGroupsRequestData data = new ListGroupsRequestData();
            if (v >= 4) data.setStatesFilter(List.of("Stable", "Empty"));
            if (v >= 5) data.setTypesFilter(List.of("classic", "consumer"));
            request("list_groups", ApiKeys.LIST_GROUPS, v, data);
        }
        for (int v = 3; v <= 5; v++) {
            List<ListGroupsResponseData.ListedGroup> groups = List.of(
                new ListGroupsResponseData.ListedGroup().setGroupId("billing")
                    .setProtocolType("consumer").setGroupState("Stable").setGroupType("consumer"),
                new ListGroupsResponseData.ListedGroup().setGroupId("audit")
                    .setProtocolType("").setGroupState("Empty").setGroupType("classic"));
            response("list_groups", ApiKeys.LIST_GROUPS, v, new ListGroupsResponseData()
                .setThrottleTimeMs(3).setErrorCode((short) 0).setGroups(groups));
        }
        response("list_groups.error", ApiKeys.LIST_GROUPS, 5, new ListGroupsResponseData()
            .setErrorCode((short) 15).setGroups(List.of()));

        for (int v = 4; v <= 6; v++) {
            request("find_coordinator", ApiKeys.FIND_COORDINATOR, v, new FindCoordinatorRequestData()
                .setKeyType((byte) 0).setCoordinatorKeys(List.of("billing", "audit")));
            response("find_coordinator", ApiKeys.FIND_COORDINATOR, v, new FindCoordinatorResponseData()
                .setThrottleTimeMs(0).setCoordinators(List.of(
                    new FindCoordinatorResponseData.Coordinator().setKey("billing").setNodeId(2)
                        .setHost("broker-2").setPort(9092).setErrorCode((short) 0).setErrorMessage(null),
                    new FindCoordinatorResponseData.Coordinator().setKey("audit").setNodeId(-1)
                        .setHost("").setPort(-1).setErrorCode((short) 15)
                        .setErrorMessage("The coordinator is not available."))));
        }

        for (int v = 8; v <= 9; v++) {
            OffsetFetchRequestData.OffsetFetchRequestGroup billing =
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("billing").setTopics(null);
            OffsetFetchRequestData.OffsetFetchRequestGroup audit =
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("audit").setTopics(List.of(
                    new OffsetFetchRequestData.OffsetFetchRequestTopics().setName("orders")
                        .setPartitionIndexes(List.of(0, 1))));
            request("offset_fetch", ApiKeys.OFFSET_FETCH, v, new OffsetFetchRequestData()
                .setGroups(List.of(billing, audit)).setRequireStable(false));

            OffsetFetchResponseData.OffsetFetchResponseGroup billingAnswer =
                new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId("billing")
                    .setErrorCode((short) 0).setTopics(List.of(
                        new OffsetFetchResponseData.OffsetFetchResponseTopics().setName("orders")
                            .setPartitions(List.of(
                                new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                                    .setPartitionIndex(0).setCommittedOffset(1234L)
                                    .setCommittedLeaderEpoch(3).setMetadata("").setErrorCode((short) 0),
                                new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                                    .setPartitionIndex(1).setCommittedOffset(-1L)
                                    .setCommittedLeaderEpoch(-1).setMetadata(null).setErrorCode((short) 0))),
                        new OffsetFetchResponseData.OffsetFetchResponseTopics().setName("payments")
                            .setPartitions(List.of(
                                new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                                    .setPartitionIndex(4).setCommittedOffset(99L)
                                    .setCommittedLeaderEpoch(0).setMetadata("m").setErrorCode((short) 0)))));
            OffsetFetchResponseData.OffsetFetchResponseGroup auditAnswer =
                new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId("audit")
                    .setErrorCode((short) 16).setTopics(List.of());
            response("offset_fetch", ApiKeys.OFFSET_FETCH, v, new OffsetFetchResponseData()
                .setThrottleTimeMs(1).setGroups(List.of(billingAnswer, auditAnswer)));
        }
    }

    public static void main(String[] args) throws Exception {
        System.out.println("# Kafka wire vectors from kafka-clients " + AppInfoParser.getVersion()
            + "'s message classes. Generated by VectorGen.java; regenerate with"
            + " tests/kafka/vectors/regenerate. Do not edit.");
        requests();
        responses();
        describeTopicPartitions();
        saslResponses();
        metadataAndOffsets();
        scramConversations();
        consumerGroups();
        MetadataLogVectors.metadataRecords();
        MetadataLogVectors.recordBatches();
        MetadataLogVectors.metadataLogFetch();
        MetadataLogVectors.metadataLogFetchSnapshot();
        for (Errors error : Errors.values()) {
            System.out.println("error " + error.code() + " " + error.name() + " "
                + (error.exception() instanceof RetriableException ? 1 : 0));
        }
    }
}
