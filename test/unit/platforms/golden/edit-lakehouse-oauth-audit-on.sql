-- Lakehouse edit

-- Run as the catalog owner or a metastore admin.
CREATE SCHEMA `service`.`audit`;
GRANT USE CATALOG ON CATALOG `system` TO `7f1c-service-principal`;
GRANT USE SCHEMA, SELECT ON SCHEMA `system`.`access` TO `7f1c-service-principal`;
