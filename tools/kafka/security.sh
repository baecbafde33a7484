# Sourced by tools/kafka-cluster (functions and the users' and ACLs' tables, nothing run):
# what a secured cluster is made of. It reads the script's $run, $root, $jars and
# tool_jvm_opts, and calls its die.

# ------------------------------------------------------------------ a secured cluster
#
# `up --security sasl_ssl`: every broker has one listener, SASL_SSL, for clients and for
# replication between brokers; the controller listener is SASL_PLAINTEXT with PLAIN (below).
# Kafka's StandardAuthorizer on every node, and no ACL means no access. The CA, the brokers'
# certificate and every password are made at each `up`, in $run/security; nothing is checked in.

security_dir() { echo "$run/security"; }

# plaintext or sasl_ssl: what the cluster in $run was started with.
security_mode() { cat "$run/security-mode" 2>/dev/null || echo plaintext; }

secured() { [ "$(security_mode)" = sasl_ssl ]; }

# The users of a secured cluster. `broker` is the brokers' own principal (replication, the
# controller channel) and `admin` the harness's (topics, ACLs, the `cli` tools): the two super
# users. `ballast` has the ACLs below and nothing more; `observer` may describe everything and
# alter nothing (Ballast with Alter on the cluster missing); `nobody` has no ACL at all.
client_users=(admin ballast observer nobody)
all_users=(broker "${client_users[@]}")
super_users="User:broker;User:admin"

# Every ACL of a secured cluster: one kafka-acls call a line, USER then its arguments, added
# as `--add --allow-principal User:USER ...`. The `ballast` lines are what Ballast needs, no
# more: tools/README.md gives each line's reason and the top-level README has them as commands
# for an operator. The HA lines assume ballast.ha.group.id=ballast, its default.
acls=(
  "ballast --cluster --operation Describe --operation Alter"
  "ballast --topic * --group * --operation Describe"
  "ballast --topic __auto_balancer_metrics --topic __CruiseControlMetrics --operation Read"
  "ballast --topic ballast-journal --resource-pattern-type prefixed --operation Create --operation Write --operation Read"
  "ballast --group ballast --operation Read"
  "ballast --transactional-id ballast-ha-ballast --operation Write"
  "observer --cluster --topic * --group * --operation Describe"
)

# 24 characters of [A-Za-z0-9]: safe inside a JAAS line's quotes and in a properties file.
new_password() {
  local password=""
  while [ "${#password}" -lt 24 ]; do
    password+="$(head -c 48 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"
  done
  echo "${password:0:24}"
}

password_of() {  # password_of USER
  local password
  password="$(sed -n "s/^$1=//p" "$(security_dir)/passwords" 2>/dev/null)"
  [ -n "$password" ] || die "no user '$1' on this cluster: the users are ${client_users[*]}"
  echo "$password"
}

# A CA and one certificate for the brokers (all three listen on 127.0.0.1), with subject
# alternative names 127.0.0.1 and localhost so that clients' hostname verification (on by
# default in Kafka's clients and in librdkafka) passes; EC P-256 keys, cheap to make and to
# handshake with. Also a second CA that signed nothing here, for clients that must fail to
# trust the brokers, and a PKCS12 truststore holding the first (made by keytool: Java trusts
# only certificates marked as trusted, which openssl 3.0 cannot mark).
make_certificates() {
  local dir log
  dir="$(security_dir)"
  log="$run/logs/certificates.log"
  local key_options=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  {
    openssl req -x509 "${key_options[@]}" -days 30 -subj "/CN=Ballast test CA" \
      -keyout "$dir/ca.key" -out "$dir/ca.pem" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
    openssl req -x509 "${key_options[@]}" -days 30 -subj "/CN=Ballast untrusted CA" \
      -keyout "$dir/untrusted-ca.key" -out "$dir/untrusted-ca.pem"
    openssl req -new "${key_options[@]}" -subj "/CN=localhost" \
      -keyout "$dir/broker.key" -out "$dir/broker.csr"
    printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "basicConstraints=CA:FALSE" \
      "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth,clientAuth" >"$dir/broker.ext"
    openssl x509 -req -in "$dir/broker.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
      -CAcreateserial -CAserial "$dir/ca.srl" -days 30 -extfile "$dir/broker.ext" -out "$dir/broker.pem"
    openssl pkcs12 -export -in "$dir/broker.pem" -inkey "$dir/broker.key" -certfile "$dir/ca.pem" \
      -name broker -out "$dir/broker.p12" -passout "pass:$(password_of keystore)"
    keytool -importcert -noprompt -alias ballast-test-ca -file "$dir/ca.pem" -storetype PKCS12 \
      -keystore "$dir/truststore.p12" -storepass "$(password_of truststore)"
  } >"$log" 2>&1 || { cat "$log" >&2; die "making the certificates failed (log: $log)"; }
  rm -f "$dir/broker.csr" "$dir/broker.ext" "$dir/ca.srl"
}

make_secrets() {
  local dir user
  dir="$(security_dir)"
  # Only this user reads the keys and passwords.
  (umask 077 && mkdir -p "$dir" && : >"$dir/passwords")
  for user in "${all_users[@]}" keystore truststore; do echo "$user=$(new_password)" >>"$dir/passwords"; done
  make_certificates
}

# SCRAM credentials live in the cluster's metadata, so they are written at format time (as
# bootstrap records); the PLAIN users live in the brokers' JAAS config (below).
scram_format_args() {
  local user mechanism
  for user in "${all_users[@]}"; do
    for mechanism in SCRAM-SHA-256 SCRAM-SHA-512; do
      echo "--add-scram"
      echo "$mechanism=[name=$user,password=$(password_of "$user")]"
    done
  done
}

plain_login() {  # plain_login USER: the client side of a PLAIN JAAS line
  echo "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"$1\" password=\"$(password_of "$1")\""
}

# The controller listener is SASL_PLAINTEXT with PLAIN for the `broker` principal. SASL, not
# PLAINTEXT: on a PLAINTEXT listener every connection is User:ANONYMOUS, which would then have
# to be a super user. PLAIN, not SCRAM: SCRAM credentials are metadata that the controller
# serves, so it cannot check them before it has them. No TLS: it listens on loopback only, and
# no client of a test ever reaches it.
controller_security_config() {
  cat <<EOF
listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT
sasl.enabled.mechanisms=PLAIN
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.plain.sasl.jaas.config=$(plain_login broker) user_broker="$(password_of broker)";
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=$super_users
allow.everyone.if.no.acl.found=false
EOF
}

broker_security_config() {  # broker_security_config PORT
  local dir plain_users="" user
  dir="$(security_dir)"
  for user in "${all_users[@]}"; do plain_users+=" user_$user=\"$(password_of "$user")\""; done
  cat <<EOF
listeners=SASL_SSL://127.0.0.1:$1
advertised.listeners=SASL_SSL://127.0.0.1:$1
listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
# Brokers replicate over the clients' listener as the broker principal (a super user), with
# PLAIN: one listener and one port a broker, as on the plaintext cluster, and TLS carries the
# password.
inter.broker.listener.name=SASL_SSL
sasl.mechanism.inter.broker.protocol=PLAIN
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.plain.sasl.jaas.config=$(plain_login broker);
listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512,PLAIN
listener.name.sasl_ssl.plain.sasl.jaas.config=$(plain_login broker)$plain_users;
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.ssl.keystore.type=PKCS12
listener.name.sasl_ssl.ssl.keystore.location=$dir/broker.p12
listener.name.sasl_ssl.ssl.keystore.password=$(password_of keystore)
listener.name.sasl_ssl.ssl.truststore.type=PEM
listener.name.sasl_ssl.ssl.truststore.location=$dir/ca.pem
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=$super_users
allow.everyone.if.no.acl.found=false
EOF
}

# The Kafka client properties of USER with MECHANISM (SCRAM-SHA-512, SCRAM-SHA-256, PLAIN)
# and the CA as PEM or in a PKCS12 truststore: written on first use; prints the path.
client_config() {  # client_config USER [MECHANISM] [pem|pkcs12]
  local user="$1" mechanism truststore="${3:-pem}" module file dir
  mechanism="$(echo "${2:-SCRAM-SHA-512}" | tr 'a-z' 'A-Z')"
  dir="$(security_dir)"
  password_of "$user" >/dev/null
  case "$mechanism" in
    SCRAM-SHA-256|SCRAM-SHA-512) module=org.apache.kafka.common.security.scram.ScramLoginModule ;;
    PLAIN) module=org.apache.kafka.common.security.plain.PlainLoginModule ;;
    *) die "unknown SASL mechanism '$mechanism': SCRAM-SHA-512 | SCRAM-SHA-256 | PLAIN" ;;
  esac
  case "$truststore" in pem|pkcs12) ;; *) die "unknown truststore '$truststore': pem | pkcs12" ;; esac
  if [ "$mechanism" = SCRAM-SHA-512 ] && [ "$truststore" = pem ]; then
    file="$run/client-$user.properties"
  else
    file="$run/client-$user-$(echo "$mechanism" | tr 'A-Z' 'a-z')-$truststore.properties"
  fi
  if [ ! -f "$file" ]; then
    {
      echo "bootstrap.servers=$(bootstrap_servers)"
      echo "security.protocol=SASL_SSL"
      echo "sasl.mechanism=$mechanism"
      echo "sasl.jaas.config=$module required username=\"$user\" password=\"$(password_of "$user")\";"
      if [ "$truststore" = pem ]; then
        echo "ssl.truststore.type=PEM"
        echo "ssl.truststore.location=$dir/ca.pem"
      else
        echo "ssl.truststore.type=PKCS12"
        echo "ssl.truststore.location=$dir/truststore.p12"
        echo "ssl.truststore.password=$(password_of truststore)"
      fi
    } >"$file.tmp.$$"
    mv "$file.tmp.$$" "$file"
  fi
  echo "$file"
}

# The ACLs above, added by the admin user: every kafka-acls call in one JVM (MainPerLine).
add_acls() {
  local acl args fixed log="$run/logs/acls.out"
  fixed=(--bootstrap-server "$(bootstrap_servers)" --command-config "$run/client-admin.properties" --add)
  for acl in "${acls[@]}"; do
    read -ra args <<<"$acl"  # split without globbing: '*' stays a word
    (IFS=$'\t'; echo "${fixed[*]}"$'\t'"--allow-principal"$'\t'"User:${args[0]}"$'\t'"${args[*]:1}")
  done | java "${tool_jvm_opts[@]}" -Dlog4j2.configurationFile="$root/tools/kafka/log4j2-tools.xml" \
    -cp "$jars/*" "$root/tools/kafka/MainPerLine.java" org.apache.kafka.tools.AclCommand >"$log" 2>&1 ||
    { cat "$log" >&2; die "adding the ACLs failed (log: $log)"; }
}
