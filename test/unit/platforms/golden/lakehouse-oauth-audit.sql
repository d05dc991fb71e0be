-- ===== create =====
-- Lakehouse setup

-- Run as a metastore admin.
CREATE CATALOG `service` COMMENT 'Internal data of the access-policy service';
REVOKE ALL PRIVILEGES ON CATALOG `service` FROM `account users`;
CREATE SCHEMA `service`.`metadata`;
CREATE SCHEMA `service`.`audit`;
GRANT USE CATALOG ON CATALOG `system` TO `7f1c-service-principal`;
GRANT USE SCHEMA, SELECT ON SCHEMA `system`.`access` TO `7f1c-service-principal`;
ALTER CATALOG `service` OWNER TO `7f1c-service-principal`;

-- ===== delete =====
-- Lakehouse removal

-- Run as the catalog owner or a metastore admin.
REVOKE USE SCHEMA, SELECT ON SCHEMA `system`.`access` FROM `7f1c-service-principal`;
REVOKE USE CATALOG ON CATALOG `system` FROM `7f1c-service-principal`;
DROP CATALOG `service` CASCADE;
