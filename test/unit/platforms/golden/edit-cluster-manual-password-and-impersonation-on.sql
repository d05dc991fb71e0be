-- ClusterWarehouse edit

-- Users and groups (any database).
ALTER USER "service_system_user" PASSWORD 'N3w-pass';
CREATE GROUP "service_impersonation";

-- Schema grants, connected to the managed database.
-- Connect to database "service_db" first.
GRANT USAGE ON SCHEMA "service_policies" TO GROUP "service_impersonation";
